import { z } from 'zod';
import { LOCALES } from './constants.ts';
import { machineId } from './license.ts';
import { licenseFileJson } from './client-protocol.ts';
import { isoDateTime, listResponse, wholeNumberText, MAX_RECORD_ID } from './list.ts';

/** Releases and their artifacts (DESIGN.md section 6i). */
export const RELEASE_CHANNELS = ['stable', 'beta'] as const;
export type ReleaseChannel = (typeof RELEASE_CHANNELS)[number];
export const ARTIFACT_PLATFORMS = ['windows', 'macos', 'linux', 'any'] as const;
export type ArtifactPlatform = (typeof ARTIFACT_PLATFORMS)[number];
export const ARTIFACT_ARCHS = ['x86_64', 'arm64', 'any'] as const;
export type ArtifactArch = (typeof ARTIFACT_ARCHS)[number];

/** What the server signs for an artifact: this prefix and the file's SHA-256 in lowercase hex. */
export const ARTIFACT_SIGNATURE_PREFIX = 'artifact/';
/** What the server signs for an updates answer: this prefix and the answer's `enc`. */
export const UPDATES_SIGNATURE_PREFIX = 'updates/';

/** Semantic Versioning 2.0.0, as semver.org gives it. */
export const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export const semverText = z.string().trim().min(1).max(100).regex(SEMVER_PATTERN, 'validation.semver');

/** A file name without any folder: letters, digits, dot, dash, underscore and plus; no `..`, no leading dot. */
export const artifactFileName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, 'validation.artifactFileName')
  .refine((name) => !name.includes('..'), 'validation.artifactFileName');

export const releaseNotes = z.partialRecord(z.enum(LOCALES), z.string().max(20_000));

export const releaseFields = z.object({
  version: semverText,
  channel: z.enum(RELEASE_CHANNELS).default('stable'),
  releasedAt: isoDateTime,
  notes: releaseNotes.default({}),
});
export type ReleaseFields = z.output<typeof releaseFields>;

export const releaseUpdate = z.object({
  channel: z.enum(RELEASE_CHANNELS).optional(),
  releasedAt: isoDateTime.optional(),
  notes: releaseNotes.optional(),
  yanked: z.boolean().optional(),
});
export type ReleaseUpdate = z.output<typeof releaseUpdate>;

export const artifact = z
  .object({
    id: z.number().int(),
    platform: z.enum(ARTIFACT_PLATFORMS),
    arch: z.enum(ARTIFACT_ARCHS),
    filename: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    /** Base64 Ed25519 signature over `artifact/` + sha256, by the key `kid`. */
    sig: z.string(),
    kid: z.string(),
  });
export type Artifact = z.output<typeof artifact>;

export const release = z
  .object({
    id: z.number().int(),
    productId: z.number().int(),
    version: z.string(),
    channel: z.enum(RELEASE_CHANNELS),
    releasedAt: isoDateTime,
    notes: z.partialRecord(z.enum(LOCALES), z.string()),
    yanked: z.boolean(),
    artifacts: z.array(artifact),
    /** Downloads started (staff only; 0 for others). */
    downloads: z.number().int(),
  });
export type Release = z.output<typeof release>;
export const releaseList = listResponse(release);

export const artifactCreate = z.object({
  /** The last segment of the tus upload's Location. */
  uploadId: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'validation.invalidValue'),
  platform: z.enum(ARTIFACT_PLATFORMS),
  arch: z.enum(ARTIFACT_ARCHS),
  filename: artifactFileName,
});
export type ArtifactCreate = z.output<typeof artifactCreate>;

export const artifactParams = z.object({
  id: wholeNumberText(1, MAX_RECORD_ID).describe('The release id'),
  artifactId: wholeNumberText(1, MAX_RECORD_ID).describe('The artifact id'),
});

/** The signed, short-lived download link of an updates answer. */
export const signedDownloadQuery = z.object({
  expires: wholeNumberText(0, 99_999_999_999).describe('Unix time (seconds) the link expires at'),
  signature: z.string().min(1).max(200).describe('HMAC of the artifact id and expiry, base64url'),
});

export const NEWER_REASONS = ['free-updates-ended', 'beta-not-allowed'] as const;
export type NewerReason = (typeof NEWER_REASONS)[number];

/** A newer release the license may not have, and why. */
export const newerRelease = z.object({ version: z.string(), releasedAt: isoDateTime, reason: z.enum(NEWER_REASONS) });

/** `POST /api/client/v1/updates`. */
export const clientUpdatesRequest = z.object({
  machineId,
  product: z.string().trim().min(1).max(255),
  /** The version the software runs now (semver); only newer releases are offered. */
  version: semverText,
  platform: z.enum(ARTIFACT_PLATFORMS),
  arch: z.enum(ARTIFACT_ARCHS),
  channel: z.enum(RELEASE_CHANNELS).default('stable'),
});
export type ClientUpdatesRequest = z.output<typeof clientUpdatesRequest>;

export const updateArtifact = artifact.omit({ id: true }).extend({ url: z.string(), urlExpiresAt: isoDateTime });
export interface UpdatesPayload {
  latest: { version: string; releasedAt: string; notes: Partial<Record<string, string>>; artifacts: z.output<typeof updateArtifact>[] } | null;
  newer: { version: string; releasedAt: string; reason: NewerReason } | null;
  /** When the answer was made, so that a replayed old answer can be told. */
  issuedAt: string;
}
/** The answer: `enc` (base64 JSON UpdatesPayload) and `sig` over `updates/` + enc, like license files. */
export const clientUpdatesAnswer = licenseFileJson;

/** A customer's downloads: per license, what it may have and the newer release it may not. */
export const licenseDownloads = z.object({
  licenseId: z.number().int(),
  product: z.object({ id: z.number().int(), name: z.string(), version: z.string() }),
  machineId: z.string().nullable(),
  freeUpdatesUntil: z.string().nullable(),
  /** Why the license gets nothing at all (revoked, suspended, lapsed), or null. */
  refusal: z.string().nullable(),
  releases: z.array(release),
  newer: newerRelease.nullable(),
});
export const downloadsList = z.object({ items: z.array(licenseDownloads) });
export type LicenseDownloads = z.output<typeof licenseDownloads>;

export const releaseIdParam = z.object({ id: wholeNumberText(1, MAX_RECORD_ID).describe('The release id') });
export const productReleasesParam = z.object({ id: wholeNumberText(1, MAX_RECORD_ID).describe('The product id') });
