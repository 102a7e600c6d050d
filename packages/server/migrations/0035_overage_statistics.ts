import type { Kysely } from 'kysely';

/**
 * The statistics' `overage` category (issue 51, DESIGN.md section 6g) counts the over-limit grants of
 * a range of days, per month, and the TANs they were granted for. The primary key of
 * `license_overages` leads with the TAN (the true-up reads one TAN's month), so a range of days over
 * every TAN would read the whole table: this index leads with the day and carries the TAN, so the
 * counts of a range read only its days, from the index alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('license_overages_day').on('license_overages').columns(['day', 'tan_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('license_overages_day').execute();
}
