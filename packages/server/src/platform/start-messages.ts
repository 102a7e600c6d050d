import os from 'node:os';

const LEVELS = { info: 30, warn: 40, error: 50 } as const;

/**
 * A message of the start that is not about a request (the web app's build, the first administrator):
 * as written on a terminal, or, when the output is a log stream (a file, journald, a container's log),
 * one JSON line shaped like the server's own log lines (pino: level, time, pid, hostname, msg), so
 * that a log collector reads every line. Written whatever LOG_LEVEL says: a one-time password must
 * reach the operator.
 */
export function startMessage(text: string, options: { level?: keyof typeof LEVELS; fields?: Record<string, unknown>; stream?: NodeJS.WriteStream } = {}): void {
  const stream = options.stream ?? process.stdout;
  if (stream.isTTY) {
    stream.write(`${text}\n`);
    return;
  }
  const msg = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
  stream.write(`${JSON.stringify({ level: LEVELS[options.level ?? 'info'], time: Date.now(), pid: process.pid, hostname: os.hostname(), ...options.fields, msg })}\n`);
}
