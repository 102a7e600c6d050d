import { sql, type Kysely } from 'kysely';

/**
 * Why a webhook attempt failed, as a code (`WEBHOOK_FAILURE_REASONS` of the contract) that the web
 * words in the reader's language; `error` keeps the technical detail in English. The attempts logged
 * before get the code their English text stands for; any other text is `other`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').addColumn('reason', 'text').execute();
  await sql`
    update webhook_attempts set reason = case
      when error = 'Connection refused' then 'connectionRefused'
      when error = 'The host name does not resolve' then 'dnsFailed'
      when error = 'The connection was reset' then 'connectionReset'
      when error = 'The URL is not valid' then 'invalidUrl'
      when error like 'No answer within %' then 'timeout'
      when error like 'The receiver answered %' then 'httpStatus'
      when error like '% is not a public address (%' then 'privateAddress'
      else 'other'
    end
    where error is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').dropColumn('reason').execute();
}
