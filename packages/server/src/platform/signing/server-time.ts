import { encodeServerTime, serverTimeMessage } from '@lm/contract/license-file';
import type { AppContext } from '../context.ts';
import { signingKeys, type Signer } from './keys.ts';

/**
 * The `License-Server-Time` token of this process (DESIGN.md section 6d): the server's time signed
 * with the license-signing key, so that a client can tell when its own clock was set back. Signed
 * at most once per second and key, and shared by every answer of that second: a 304 still costs no
 * signature, and the header is a string lookup on the hot path.
 */
export class ServerTimeTokens {
  private readonly signer: () => Signer;
  private readonly now: () => number;
  /** The token of the current second (and its key), once signed. */
  private ready: { second: number; kid: string; value: string } | undefined;
  /** The signature under way for a new second, shared by the answers that arrive meanwhile. */
  private pending: { second: number; kid: string; value: Promise<string> } | undefined;
  /** How many tokens this process signed (for the tests of the once-per-second promise). */
  signatures = 0;

  constructor(signer: () => Signer, now: () => number = Date.now) {
    this.signer = signer;
    this.now = now;
  }

  /** The header value for an answer now: a string when this second's token exists, else its signature under way. */
  current(): string | Promise<string> {
    const second = Math.floor(this.now() / 1000);
    const signer = this.signer();
    const ready = this.ready;
    if (ready && ready.second === second && ready.kid === signer.kid) return ready.value;
    const pending = this.pending;
    if (pending && pending.second === second && pending.kid === signer.kid) return pending.value;
    const enc = encodeServerTime({ t: second, kid: signer.kid });
    this.signatures++;
    const value = signer.sign(serverTimeMessage(enc)).then((sig) => {
      const token = `${enc}.${sig}`;
      if (!this.ready || this.ready.second <= second) this.ready = { second, kid: signer.kid, value: token };
      if (this.pending?.value === value) this.pending = undefined;
      return token;
    });
    value.catch(() => {
      if (this.pending?.value === value) this.pending = undefined;
    });
    this.pending = { second, kid: signer.kid, value };
    return value;
  }
}

const perApp = new WeakMap<AppContext, ServerTimeTokens>();

/** The time tokens of an app, signed with its current license-signing key. */
export function serverTimeTokens(ctx: AppContext): ServerTimeTokens {
  let tokens = perApp.get(ctx);
  if (!tokens) {
    const ring = signingKeys(ctx);
    tokens = new ServerTimeTokens(() => ring.current());
    perApp.set(ctx, tokens);
  }
  return tokens;
}
