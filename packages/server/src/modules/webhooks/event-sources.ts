import type { Executor } from '../../platform/db/database.ts';
import { registerEventSource } from '../../platform/webhooks/outbox.ts';
import { findLicenseView } from '../licenses/repo.ts';
import { toLicenses } from '../licenses/view.ts';
import { findTanViews } from '../tans/repo.ts';
import { findUserById, toUser } from '../users/repo.ts';

async function licenses(db: Executor, ids: readonly number[]) {
  const rows = [];
  for (const id of ids) {
    const row = await findLicenseView(db, id);
    if (row) rows.push(row);
  }
  return new Map((await toLicenses(db, rows)).map((license) => [license.id, license as unknown as Record<string, unknown>]));
}

async function users(db: Executor, ids: readonly number[]) {
  const result = new Map<number, Record<string, unknown>>();
  for (const id of ids) {
    const row = await findUserById(db, id);
    if (row) result.set(id, toUser(row) as unknown as Record<string, unknown>);
  }
  return result;
}

/**
 * The objects of the change events, as the API returns them (GET /licenses/{id}, /tans/{id},
 * /users/{id}): licenses and TANs with their names, users without any secret.
 */
export function registerWebhookEventSources(): void {
  registerEventSource('License', { load: licenses, personOf: (data) => (typeof data.ownerId === 'number' ? data.ownerId : null) });
  registerEventSource('Tan', {
    load: async (db, ids) => new Map([...(await findTanViews(db, ids))].map(([id, tan]) => [id, tan as unknown as Record<string, unknown>])),
    personOf: () => null,
  });
  registerEventSource('User', { load: users, personOf: (data) => (typeof data.id === 'number' ? data.id : null) });
}
