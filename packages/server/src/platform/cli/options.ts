/**
 * Command-line options for `npm run cli`: parsed by hand rather than with util.parseArgs, which stops
 * at the first wrong option and takes `--email --role` as an e-mail address. Every problem becomes
 * one readable line, so that an operator sees all of them at once.
 */
import type { z } from 'zod';

export interface OptionSpec {
  /** The value's placeholder in the help, e.g. `<address>`; without it the option is a flag. */
  value?: string;
  description: string;
  required?: boolean;
  /** Checks and converts the value; its first problem's message is shown, unless `problem` says it better. */
  schema?: z.ZodType;
  /** What a wrong value is told, e.g. 'must be an e-mail address'. */
  problem?: string;
  /** Never shown back in a message (passwords). */
  secret?: boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;

export type OptionValues = Record<string, unknown>;

export interface ParsedOptions {
  values: OptionValues;
  help: boolean;
  problems: string[];
}

const isOptionLike = (arg: string | undefined) => arg !== undefined && arg.startsWith('-') && arg !== '-';

/** Reads `--name value`, `--name=value` and flags; `-h`/`--help` asks for the command's help. */
export function parseOptions(args: readonly string[], specs: OptionSpecs): ParsedOptions {
  const raw = new Map<string, string | true>();
  /** Options that already have a problem: not also reported as missing. */
  const faulty = new Set<string>();
  const problems: string[] = [];
  let help = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      problems.push(isOptionLike(arg) ? `unknown option ${arg}` : `unexpected argument "${arg}"`);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals < 0 ? undefined : equals);
    let value: string | undefined = equals < 0 ? undefined : arg.slice(equals + 1);
    const spec = specs[name];
    if (!spec) {
      problems.push(`unknown option --${name}`);
      // Its value, if it has one, is part of the same mistake.
      if (value === undefined && args[index + 1] !== undefined && !isOptionLike(args[index + 1])) index++;
      continue;
    }
    if (raw.has(name)) problems.push(`--${name} is given more than once`);
    if (!spec.value) {
      if (value !== undefined) problems.push(`--${name} takes no value`);
      raw.set(name, true);
      continue;
    }
    if (value === undefined && args[index + 1] !== undefined && !isOptionLike(args[index + 1])) value = args[++index];
    if (value === undefined) {
      problems.push(`--${name} needs a value ${spec.value}`);
      faulty.add(name);
      continue;
    }
    raw.set(name, value);
  }

  const values: OptionValues = {};
  for (const [name, spec] of Object.entries(specs)) {
    const given = raw.get(name);
    if (given === undefined) {
      if (spec.required && !help && !faulty.has(name)) problems.push(`--${name} ${spec.value ?? ''} is required`.replace(/ +/g, ' '));
      else if (spec.schema) {
        // The schema's default, if it has one.
        const fallback = spec.schema.safeParse(undefined);
        if (fallback.success) values[name] = fallback.data;
      }
      continue;
    }
    if (!spec.schema || given === true) {
      values[name] = given;
      continue;
    }
    const parsed = spec.schema.safeParse(given);
    if (parsed.success) values[name] = parsed.data;
    else problems.push(`--${name}: ${spec.problem ?? parsed.error.issues[0]?.message ?? 'is not allowed'}${spec.secret ? '' : ` (got "${given}")`}`);
  }
  return { values, help, problems };
}

/** The options part of a command's help: one line each, descriptions aligned. */
export function describeOptions(specs: OptionSpecs): string[] {
  const rows = Object.entries(specs).map(([name, spec]) => [`--${name}${spec.value ? ` ${spec.value}` : ''}`, `${spec.description}${spec.required ? ' (required)' : ''}`]);
  rows.push(['-h, --help', 'shows this help']);
  const width = Math.max(...rows.map(([left]) => left.length)) + 3;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
}

/** The synopsis: required options written out, the others as [options]. */
export function synopsis(command: string, specs: OptionSpecs): string {
  const required = Object.entries(specs)
    .filter(([, spec]) => spec.required)
    .map(([name, spec]) => `--${name} ${spec.value ?? ''}`.trim());
  const optional = Object.values(specs).some((spec) => !spec.required);
  return ['npm run cli --', command, ...required, ...(optional ? ['[options]'] : [])].join(' ');
}
