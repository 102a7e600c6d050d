import { hash } from 'node:crypto';

/**
 * The ETag of a license file (DESIGN.md section 6, "Conditional refresh"): when the file was issued
 * and a hash of its signed payload (`enc`), `"lm1-<issued ms, base 36>-<SHA-256 of enc, base64url, 22
 * characters>"`. The payload holds everything the file says (license, owner, product, features,
 * policy fields, expiry, server customer id, key id), so the server decides whether the file a
 * machine holds is still right by building the payload it would issue at that same moment and
 * comparing hashes: no signature, no stored state, and no change to anything in the file can go
 * unnoticed, however it was made (even by plain SQL). A client can derive the tag from any file it
 * holds, also one copied by hand (the SDK does); a made-up tag wins nothing, since a 304 carries no
 * signed content and the client's own file keeps its own expiry.
 */
const PREFIX = 'lm1';
const HASH_LENGTH = 22;

export interface FileTag {
  issuedAt: Date;
  hash: string;
}

/** One-shot hashing: a Hash object per call cost twice as much, on the path of every conditional refresh. */
export function encHash(enc: string): string {
  return hash('sha256', enc, 'base64url').slice(0, HASH_LENGTH);
}

/** The tag of a file, from its `enc` and its payload's issuedAt. */
export function licenseFileTag(enc: string, issuedAt: string): string {
  return formatFileTag({ issuedAt: new Date(issuedAt), hash: encHash(enc) });
}

/** A tag as this server writes it (a client's weak prefix dropped). */
export function formatFileTag(tag: FileTag): string {
  return `"${PREFIX}-${tag.issuedAt.getTime().toString(36)}-${tag.hash}"`;
}

const TAG = new RegExp(`^(?:W/)?"${PREFIX}-([0-9a-z]{1,12})-([A-Za-z0-9_-]{${HASH_LENGTH}})"$`);
/** More tags than a client has any reason to send are not looked at. */
const MAX_TAGS = 4;

/** The tags of an If-None-Match header that this server could have made; anything else is ignored. */
export function parseFileTags(header: string | undefined): FileTag[] {
  if (!header) return [];
  const tags: FileTag[] = [];
  for (const part of header.split(',').slice(0, MAX_TAGS)) {
    const match = TAG.exec(part.trim());
    if (!match) continue;
    const issuedAt = new Date(Number.parseInt(match[1], 36));
    if (!Number.isNaN(issuedAt.getTime())) tags.push({ issuedAt, hash: match[2] });
  }
  return tags;
}

