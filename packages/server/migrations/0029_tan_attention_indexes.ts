import { sql, type Kysely } from 'kysely';

/**
 * The staff home (issue 49, `GET /api/dashboard`) and the TAN list's attention filters
 * (`GET /api/tans?state=…`) count the TANs that need someone: suspended, a subscription ending soon,
 * near their license count. Few TANs are so among a million, so each is a partial index holding only
 * them, for all TANs and led by the distributor for a distributor's own. A query uses a partial index
 * only when its WHERE repeats the index's condition word for word: these are the texts of
 * modules/tans/attention.ts (kept equal there; the dashboard test checks that they serve). The
 * near-count index holds the columns of its condition: SQLite then counts from it alone (covering)
 * rather than taking the revoked index for cheaper (10 s at a million TANs).
 */
const NOT_REVOKED = 'revoked = false';
const INDEXES: [name: string, columns: string, condition: string][] = [
  ['tans_attention_suspended', 'distributor_id, id', `suspended = true and ${NOT_REVOKED}`],
  ['tans_attention_ending', 'valid_until, id', `valid_until is not null and ${NOT_REVOKED}`],
  ['tans_attention_ending_distributor', 'distributor_id, valid_until, id', `valid_until is not null and ${NOT_REVOKED}`],
  ['tans_attention_near_count', 'distributor_id, license_count, activated_count, revoked', `license_count + 0 > 1 and activated_count * 5 >= license_count * 4 and ${NOT_REVOKED}`],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, columns, condition] of INDEXES) await sql.raw(`create index ${name} on tans (${columns}) where ${condition}`).execute(db);
  await sql`analyze tans`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await sql.raw(`drop index ${name}`).execute(db);
}
