import pg from 'pg';
import type { Config } from '../config.ts';

/** Refusals that a database still starting gives: nobody listening yet, the name not yet known, "the database system is starting up". */
const NOT_YET = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', '57P03']);

/**
 * Waits up to DATABASE_WAIT_SECONDS for PostgreSQL to take a connection, trying once a second, so
 * that a server started beside its database (compose files, whose health-check ordering not every
 * tool honours: podman-compose 1.0 ignores it) starts once the database does instead of stopping.
 * Any other refusal (a wrong password, no such database) ends the wait at once, as does the deadline.
 */
export async function waitForDatabase(config: Config, log: (text: string) => void = (text) => console.log(text)): Promise<void> {
  if (config.database.kind !== 'postgres' || config.databaseWaitSeconds <= 0) return;
  const deadline = Date.now() + config.databaseWaitSeconds * 1000;
  let said = false;
  for (;;) {
    const client = new pg.Client({ connectionString: config.database.url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      if (said) log('the database answers; starting');
      return;
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (!NOT_YET.has(code) || Date.now() >= deadline) throw error;
      if (!said) log(`waiting up to ${config.databaseWaitSeconds} s for the database (${code})`);
      said = true;
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
