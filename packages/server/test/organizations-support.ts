import { randomBytes } from 'node:crypto';
import { TAN_ALPHABET } from '@lm/contract/tan';
import type { App } from '../src/app.ts';
import { insertPolicy, insertProduct, insertTan } from './licensing-fixtures.ts';

/** What the organization and desktop sign-in tests share. */

/** A USER-seat policy and a TAN of it with `count` seats; answers the TAN's id and code. */
export async function seatPolicy(app: App, reassignHours = 0): Promise<{ productId: number; productName: string; policyId: number }> {
  const product = await insertProduct(app);
  const policyId = await insertPolicy(app, { type: 'INDEFINITE' });
  await app.ctx.db.updateTable('license_policies').set({ seat_mode: 'USER', seat_reassign_hours: reassignHours, machines_per_user: 2 }).where('id', '=', policyId).execute();
  return { productId: product.id, productName: product.name, policyId };
}

export async function seatTan(app: App, count: number, reassignHours = 0): Promise<{ id: number; code: string; productName: string }> {
  const { productId, productName, policyId } = await seatPolicy(app, reassignHours);
  const product = { id: productId, name: productName };
  const id = await insertTan(app, { productId: product.id, policyId, licenseCount: count });
  const code = Array.from(randomBytes(12), (byte) => TAN_ALPHABET[byte % TAN_ALPHABET.length]).join('');
  await app.ctx.db.updateTable('tans').set({ code }).where('id', '=', id).execute();
  return { id, code, productName: product.name };
}

/** The payload of a `.json` license file. */
export function decodeLicenseFile(file: { enc: string }): Record<string, unknown> {
  return JSON.parse(Buffer.from(file.enc, 'base64').toString('utf8')) as Record<string, unknown>;
}
