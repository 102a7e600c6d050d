import type { LicenseForFile } from './repo.ts';

/**
 * Everything a license file's payload is built from, but its two times (service.ts, payloadAt): the
 * license as just read with its product and policy from the catalogue cache, the product's resolved
 * features, the server customer id, the signing key and the machine.
 */
export interface PayloadInputs {
  license: LicenseForFile;
  features: readonly string[];
  serverCustomerId: string | null;
  kid: string;
  machineId: string;
}

interface Entry {
  hash: string;
  issuedAtMs: number;
  /** The file's expiry, a function of the inputs and issuedAt; null: never. */
  expiresAtMs: number | null;
  inputs: PayloadInputs;
}

/** Licenses remembered; beyond it the memo starts afresh (each tag is then checked the long way once more). */
const MAX_REMEMBERED = 200_000;

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether two sets of inputs give the same payload at the same issuedAt: the same values in every
 * field the payload reads, also of the product, policy and features (the catalogue cache makes new
 * objects of them each time it reloads, every few seconds).
 */
function sameInputs(a: PayloadInputs, b: PayloadInputs): boolean {
  const x = a.license;
  const y = b.license;
  return (
    a.machineId === b.machineId &&
    a.kid === b.kid &&
    a.serverCustomerId === b.serverCustomerId &&
    sameNames(a.features, b.features) &&
    x.product.id === y.product.id &&
    x.product.name === y.product.name &&
    x.product.version === y.product.version &&
    x.policy.type === y.policy.type &&
    x.policy.licenseMaxValidDays === y.policy.licenseMaxValidDays &&
    x.policy.refetchIntervalSeconds === y.policy.refetchIntervalSeconds &&
    x.policy.refetchBeforeExpirySeconds === y.policy.refetchBeforeExpirySeconds &&
    x.id === y.id &&
    x.kind === y.kind &&
    x.productId === y.productId &&
    x.validUntil === y.validUntil &&
    x.permanent === y.permanent &&
    x.tanValidUntil === y.tanValidUntil &&
    x.freeUpdatesUntil === y.freeUpdatesUntil &&
    x.owner.firstName === y.owner.firstName &&
    x.owner.lastName === y.owner.lastName &&
    x.owner.company === y.owner.company
  );
}

/**
 * The files this process knows to be right (DESIGN.md section 6, "Conditional refresh"): per
 * license, the tag of the last file it signed or confirmed, with the inputs that file was built from.
 * A conditional refresh naming that tag, whose inputs (read anew for each request: the license from
 * the database, the rest from the catalogue cache and the key ring) are the same values, would
 * rebuild the same payload and hash it to the same tag; the memo answers that without rebuilding,
 * encoding and hashing it. Anything that changes the file changes an input and so misses the memo
 * and takes the long way, which decides as before; so does another instance's change, seen through
 * the same reads.
 */
export class TagMemo {
  private entries = new Map<number, Entry>();

  /** The expiry (ms, or null) of the file named by `hash` and `issuedAtMs` when it is known right for these inputs; undefined when unknown. */
  expiryIfKnown(hash: string, issuedAtMs: number, inputs: PayloadInputs): number | null | undefined {
    const entry = this.entries.get(inputs.license.id);
    if (!entry || entry.hash !== hash || entry.issuedAtMs !== issuedAtMs || !sameInputs(entry.inputs, inputs)) return undefined;
    return entry.expiresAtMs;
  }

  /** Remembers that the file `hash`, issued at `issuedAtMs` and expiring at `expiresAtMs`, is what these inputs give. */
  remember(hash: string, issuedAtMs: number, expiresAtMs: number | null, inputs: PayloadInputs): void {
    if (this.entries.size >= MAX_REMEMBERED && !this.entries.has(inputs.license.id)) this.entries = new Map();
    this.entries.set(inputs.license.id, { hash, issuedAtMs, expiresAtMs, inputs });
  }
}

const memos = new WeakMap<object, TagMemo>();

/** The memo of one app (by its context). */
export function tagMemo(ctx: object): TagMemo {
  let memo = memos.get(ctx);
  if (!memo) {
    memo = new TagMemo();
    memos.set(ctx, memo);
  }
  return memo;
}
