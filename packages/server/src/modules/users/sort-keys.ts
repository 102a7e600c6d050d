/**
 * The keys the user list sorts names and company by (migration 0019): lowercase and without accents,
 * so that "Özdemir" sorts among the O's and "Ärzte" among the A's, the same on SQLite and PostgreSQL.
 * Both compare the keys byte by byte (SQLite's BINARY, PostgreSQL's C collation); neither can fold
 * accents in an index itself (SQLite's lower() folds ASCII letters only; an index on a function of
 * the app's would make the file unreadable to every other tool). A change here needs a migration that
 * computes the stored keys again.
 */

/** Letters that decomposition leaves whole but that readers sort as others. */
const SPELLED_OUT: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', ı: 'i', þ: 'th' };
const SPELLED_OUT_PATTERN = new RegExp(`[${Object.keys(SPELLED_OUT).join('')}]`, 'gu');

/** The sort key of a name: "Ömer Çelik" → "omer celik", "Straße" → "strasse". ASCII text is only lowercased. */
export function sortKey(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(SPELLED_OUT_PATTERN, (letter) => SPELLED_OUT[letter]);
}

/** The stored keys of an account's names and company. */
export function nameKeys(names: { firstName: string; lastName: string; company: string | null }) {
  return { first_name_key: sortKey(names.firstName), last_name_key: sortKey(names.lastName), company_key: names.company === null ? null : sortKey(names.company) };
}
