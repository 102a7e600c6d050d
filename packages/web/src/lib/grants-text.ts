import type { EntitlementGrant, Metadata } from '@lm/contract/entitlement';

/**
 * Grants and metadata as the forms edit them: one per line, `FEATURE` or `FEATURE=value`, and
 * `key=value`. A value of digits is a number, anything else (or a value in double quotes) a text.
 */
export function formatGrants(grants: readonly { feature: string; value: number | string | null }[]): string {
  return grants.map(({ feature, value }) => (value === null ? feature : `${feature}=${typeof value === 'string' && /^-?\d+$/.test(value) ? `"${value}"` : value}`)).join('\n');
}

export function parseGrantsText(text: string): EntitlementGrant[] {
  return lines(text).map((line) => {
    const at = line.indexOf('=');
    if (at < 0) return { feature: line, value: null };
    const raw = line.slice(at + 1).trim();
    const quoted = /^"(.*)"$/.exec(raw);
    const value = quoted ? quoted[1] : /^-?\d+$/.test(raw) ? Number(raw) : raw;
    return { feature: line.slice(0, at).trim(), value };
  });
}

export function formatMetadata(metadata: Metadata): string {
  return Object.entries(metadata)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

export function parseMetadataText(text: string): Metadata {
  return Object.fromEntries(
    lines(text).map((line) => {
      const at = line.indexOf('=');
      return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    }),
  );
}

/** An entitlement as a badge shows it: `NAME` for a flag, `NAME = value` otherwise. */
export function entitlementLabel(name: string, value: true | number | string): string {
  return value === true ? name : `${name} = ${value}`;
}

/** Grants on one line, as a list or the conflict dialog shows them: `MAX_PROJECTS = 50, SIMULATION`. */
export function grantsSummary(grants: readonly { feature: string; value: number | string | null }[]): string {
  return grants.map(({ feature, value }) => entitlementLabel(feature, value ?? true)).join(', ');
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** Grants and metadata are typed in a fixed-width font; the field's label and help keep the page's. */
export const MONOSPACE_INPUT = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };
