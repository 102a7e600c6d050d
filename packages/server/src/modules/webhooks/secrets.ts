import type { AppContext } from '../../platform/context.ts';
import { decryptSecret, encryptSecret } from '../../platform/signing/secret-box.ts';

/** Decrypting costs a key derivation (scrypt): each stored secret is decrypted once per process. */
const decrypted = new Map<string, string>();

/** An endpoint secret as stored: encrypted with SECRET_KEY when one is set (like the signing key). */
export function sealSecret(ctx: AppContext, secret: string): string {
  return ctx.config.secretKey ? encryptSecret(secret, ctx.config.secretKey) : secret;
}

export function openSecret(ctx: AppContext, stored: string): string {
  let secret = decrypted.get(stored);
  if (secret === undefined) {
    secret = decryptSecret(stored, ctx.config.secretKey);
    if (decrypted.size > 1000) decrypted.clear();
    decrypted.set(stored, secret);
  }
  return secret;
}

/** The secrets that sign a delivery now: the current one, and the previous one for a day after a rotation. */
export function endpointSecrets(ctx: AppContext, endpoint: { secret: string; previous_secret: string | null; previous_secret_until: string | null }, now: Date): string[] {
  const secrets = [openSecret(ctx, endpoint.secret)];
  if (endpoint.previous_secret && endpoint.previous_secret_until && Date.parse(endpoint.previous_secret_until) > now.getTime()) secrets.push(openSecret(ctx, endpoint.previous_secret));
  return secrets;
}
