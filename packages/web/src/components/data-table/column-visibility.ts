import { useCallback, useState } from 'react';

/** Where a browser keeps which columns a person hid in which table: one key per table. */
export const COLUMN_STORAGE_PREFIX = 'table-columns:';

interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * The columns hidden in a table: the person's own choice where one was saved (the keys it names that
 * the table still has), else the table's default. A stored value that is not a list of names (an old
 * format, a hand edit) counts as no choice.
 */
export function readHiddenColumns(store: KeyValueStore | undefined, tableId: string, known: readonly string[], defaults: readonly string[]): string[] {
  let raw: string | null = null;
  try {
    raw = store?.getItem(COLUMN_STORAGE_PREFIX + tableId) ?? null;
  } catch {
    // Storage switched off: the defaults, as on a first visit.
  }
  if (raw === null) return [...defaults];
  try {
    const parsed: unknown = JSON.parse(raw);
    if (Array.isArray(parsed) && parsed.every((entry) => typeof entry === 'string')) return parsed.filter((key) => known.includes(key));
  } catch {
    // Not JSON: as if nothing were stored.
  }
  return [...defaults];
}

export function writeHiddenColumns(store: KeyValueStore | undefined, tableId: string, hidden: readonly string[]): void {
  try {
    store?.setItem(COLUMN_STORAGE_PREFIX + tableId, JSON.stringify(hidden));
  } catch {
    // A full or disabled storage: the choice holds until the page is reloaded.
  }
}

/** Hides a column, or shows it again. */
export function toggleHidden(hidden: readonly string[], key: string): string[] {
  return hidden.includes(key) ? hidden.filter((entry) => entry !== key) : [...hidden, key];
}

const browserStore = (): KeyValueStore | undefined => (typeof localStorage === 'undefined' ? undefined : localStorage);

/** The hidden columns of one table, kept in the browser across reloads. */
export function useHiddenColumns(tableId: string, known: readonly string[], defaults: readonly string[]) {
  const [hidden, setHidden] = useState(() => readHiddenColumns(browserStore(), tableId, known, defaults));
  const toggle = useCallback(
    (key: string) =>
      setHidden((current) => {
        const next = toggleHidden(current, key);
        writeHiddenColumns(browserStore(), tableId, next);
        return next;
      }),
    [tableId],
  );
  return { hidden, toggle };
}
