import type { Executor } from '../db/database.ts';

export async function insertLimitEvent(db: Executor, key: string, at: string): Promise<number> {
  const row = await db.insertInto('limit_events').values({ key, at }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** How many events of the key lie after `since`, and the oldest of them. */
export async function limitEventsSince(db: Executor, key: string, since: string): Promise<{ count: number; oldest: string | null }> {
  const row = await db
    .selectFrom('limit_events')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('at').as('oldest')])
    .where('key', '=', key)
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest };
}

export async function deleteLimitEvent(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('limit_events').where('id', '=', id).execute();
}

export async function deleteLimitEventsOfKey(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('limit_events').where('key', '=', key).execute();
}

export async function deleteLimitEventsBefore(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('limit_events').where('at', '<', before).execute();
}
