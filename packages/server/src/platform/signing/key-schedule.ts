/**
 * Which signing key signs when (staged rotation, issue 47): every key is published when it is made
 * and signs from its activation time on; the newest key that has started and is not retired signs.
 * Pure functions of the stored rows and a time, so every instance reaching the same rows at the same
 * time signs with the same key.
 */
import type { SigningKeyRow } from './repo.ts';

export type KeyState = 'published' | 'active' | 'retiring' | 'retired';

type ScheduledRow = Pick<SigningKeyRow, 'kid' | 'created_at' | 'activates_at' | 'retired_at' | 'unpublish_at'>;

/** When a key starts signing, in ms (rows older than migration 0030: their creation). */
export const activationOf = (row: ScheduledRow): number => Date.parse(row.activates_at ?? row.created_at);

/** Newest activation first; the same order on every instance. */
export function bySchedule(a: ScheduledRow, b: ScheduledRow): number {
  return activationOf(b) - activationOf(a) || (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0) || (a.kid < b.kid ? 1 : -1);
}

/** The key that signs at `now`: the newest started one that is not retired. */
export function signerAt<T extends ScheduledRow>(rows: readonly T[], now: number): T | undefined {
  return [...rows].sort(bySchedule).find((row) => !row.retired_at && activationOf(row) <= now);
}

/** Whether `GET /api/client/v1/keys` lists the key at `now`. */
export const isPublished = (row: ScheduledRow, now: number): boolean => row.unpublish_at === null || Date.parse(row.unpublish_at) > now;

/** published: signs later; active: signs now; retiring: signs no more, still published; retired: no longer published. */
export function stateOf(row: ScheduledRow, signer: ScheduledRow | undefined, now: number): KeyState {
  if (!isPublished(row, now)) return 'retired';
  if (row.kid === signer?.kid) return 'active';
  if (!row.retired_at && activationOf(row) > now) return 'published';
  return 'retiring';
}

export interface ScheduledKey {
  kid: string;
  state: KeyState;
  createdAt: string;
  activatesAt: string;
  retiredAt: string | null;
  unpublishAt: string | null;
}

/** Every key with its state at `now`, the next to sign first. */
export function keySchedule(rows: readonly ScheduledRow[], now: number): ScheduledKey[] {
  const signer = signerAt(rows, now);
  return [...rows].sort(bySchedule).map((row) => ({
    kid: row.kid,
    state: stateOf(row, signer, now),
    createdAt: row.created_at,
    activatesAt: new Date(activationOf(row)).toISOString(),
    retiredAt: row.retired_at,
    unpublishAt: row.unpublish_at,
  }));
}
