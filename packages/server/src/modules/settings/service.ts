import {
  FILE_SETTING_KEYS,
  issueMessage,
  isPublicSettingKey,
  isSettingKey,
  SECRET_MASK,
  SECRET_SETTING_KEYS,
  SETTING_DEFAULTS,
  SETTING_KEYS,
  settingValueSchema,
  type SettingKey,
  type SettingsMap,
} from '@lm/contract';
import { createHash } from 'node:crypto';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { lockKey } from '../../platform/db/dialect.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { checkPrecondition, type Precondition } from '../../platform/http/versioned.ts';
import { rowExists } from '../../platform/db/references.ts';
import { sniffImageType, themeFileName } from './files.ts';
import { deleteSetting, deleteSettingFile, readAllSettings, readSetting, readSettingFile, writeSetting, writeSettingFile, type SettingFile } from './repo.ts';
import { changingCatalogue } from '../../platform/catalogue-generation.ts';
import { sealSecret } from '../webhooks/secrets.ts';

/** The public theme settings: what any visitor may read. */
export async function publicSettings(ctx: AppContext): Promise<SettingsMap> {
  const all = await readAllSettings(ctx.db);
  return Object.fromEntries(SETTING_KEYS.filter(isPublicSettingKey).map((key) => [key, all[key] ?? null]));
}

/** Every known key for administrators, null where unset, secrets masked. */
export async function allSettings(ctx: AppContext): Promise<SettingsMap> {
  return settingsIn(ctx.db);
}

async function settingsIn(db: Executor): Promise<SettingsMap> {
  const all = await readAllSettings(db);
  return Object.fromEntries(
    SETTING_KEYS.map((key) => {
      const value = all[key] ?? null;
      return [key, value !== null && SECRET_SETTING_KEYS.includes(key) ? SECRET_MASK : value];
    }),
  );
}

/** A setting's value for the server's own rules, with its default when unset. */
export async function settingValue<T>(db: Executor, key: SettingKey): Promise<T> {
  const value = await readSetting(db, key);
  return (value ?? SETTING_DEFAULTS[key] ?? null) as T;
}

/** The settings that decide how staff sign in: an API token changes none of them. */
export const isSecuritySetting = (key: string) => key.startsWith('security.') || key.startsWith('sso.');

function knownKey(key: string): SettingKey {
  if (!isSettingKey(key)) throw notFound('Setting');
  return key;
}

export async function updateSetting(ctx: AppContext, rawKey: string, value: unknown): Promise<void> {
  const key = knownKey(rawKey);
  const checked = await checkedValue(ctx, ctx.db, key, value, 'value');
  await changingCatalogue(ctx, () => writeSetting(ctx.db, key, checked));
}

/**
 * `PATCH /settings`: the keys that change, in one transaction (null unsets a key; a secret sent back
 * masked keeps its value). With If-Match (platform/http/versioned.ts) only while the settings are
 * still those the caller read: concurrent patches take one lock, so one of them wins.
 */
export async function patchSettings(ctx: AppContext, changes: Record<string, unknown>, precondition?: Precondition): Promise<SettingsMap> {
  const keys = Object.keys(changes).map(knownKey);
  await changingCatalogue(ctx, () =>
    ctx.db.transaction().execute(async (trx) => {
      await lockKey(trx, 'settings');
      checkPrecondition(precondition, await settingsIn(trx));
      for (const key of keys) {
        const value = changes[key];
        if (value === null) {
          await deleteSetting(trx, key);
          if (FILE_SETTING_KEYS.includes(key)) await deleteSettingFile(trx, key);
        } else if (!(value === SECRET_MASK && SECRET_SETTING_KEYS.includes(key))) {
          await writeSetting(trx, key, await checkedValue(ctx, trx, key, value, key));
        }
      }
    }),
  );
  return settingsIn(ctx.db);
}

/** A setting's new value as stored, or 400 naming `path` (the field: `value`, or the key in a patch). */
async function checkedValue(ctx: AppContext, db: Executor, key: SettingKey, value: unknown, path: string): Promise<unknown> {
  if (FILE_SETTING_KEYS.includes(key)) {
    throw new AppError(400, 'ERR_VALIDATION', `${key} is set by uploading a file`, { details: [{ path, message: 'uploadFile', code: 'uploadFile' }] });
  }
  const parsed = settingValueSchema(key).safeParse(value);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => {
      const input = issue.path.reduce<unknown>((part, segment) => (part && typeof part === 'object' ? (part as Record<PropertyKey, unknown>)[segment] : undefined), value);
      const { key, params } = issueMessage({ ...issue, input });
      return { path: [path, ...issue.path].join('.'), message: key, code: key, params };
    });
    throw new AppError(400, 'ERR_VALIDATION', `${key} is not an allowed value`, { details });
  }
  if (key === 'order.temporaryLicenseProductId' && !(await rowExists(db, 'products', parsed.data as number))) {
    throw new AppError(400, 'ERR_VALIDATION', `${key} is not an allowed value`, { details: [{ path, message: 'unknownProduct', code: 'unknownProduct' }] });
  }
  // A temporary license cannot exceed the configured maximum (spec section 8), one from an order neither.
  const maximum = key === 'order.temporaryLicenseDays' ? await settingValue<number>(db, 'license.temporaryMaxDays') : null;
  if (maximum !== null && (parsed.data as number) > maximum) {
    throw new AppError(400, 'ERR_VALIDATION', `${key} is not an allowed value`, { details: [{ path, message: 'tooBig', code: 'tooBig', params: { maximum } }] });
  }
  // The provider's client secret is stored sealed with SECRET_KEY, like the other secrets.
  return key === 'sso.clientSecret' ? sealSecret(ctx, parsed.data as string) : parsed.data;
}

/** Unsets a key; an uploaded file goes with it. */
export async function removeSetting(ctx: AppContext, rawKey: string): Promise<void> {
  const key = knownKey(rawKey);
  await changingCatalogue(ctx, () =>
    ctx.db.transaction().execute(async (trx) => {
      await deleteSetting(trx, key);
      if (FILE_SETTING_KEYS.includes(key)) await deleteSettingFile(trx, key);
    }),
  );
}

const uploadRefused = (message: string) => new AppError(400, 'ERR_VALIDATION', message, { details: [{ path: 'file', message }] });

/**
 * Stores an uploaded theme file (logo, favicon) in the database, so that every app instance serves
 * it, and sets the key to its public URL with a version that changes with the bytes.
 */
export async function uploadSettingFile(ctx: AppContext, rawKey: string, data: Uint8Array | null): Promise<string> {
  const key = knownKey(rawKey);
  if (!FILE_SETTING_KEYS.includes(key)) throw uploadRefused(`${key} is not set by uploading a file`);
  if (!data || data.byteLength === 0) throw uploadRefused('file is required');
  const contentType = sniffImageType(data);
  if (!contentType) throw uploadRefused('file must be a PNG, JPEG, GIF, WebP, SVG or ICO image');
  const version = createHash('sha256').update(data).digest('hex').slice(0, 16);
  const url = `/theme/files/${themeFileName(key)}?v=${version}`;
  await ctx.db.transaction().execute(async (trx) => {
    await writeSettingFile(trx, key, { contentType, data, version });
    await writeSetting(trx, key, url);
  });
  return url;
}

/** An uploaded theme file by its public name (logo, favicon), or undefined. */
export async function themeFile(ctx: AppContext, name: string): Promise<SettingFile | undefined> {
  const key = `theme.${name}`;
  if (!FILE_SETTING_KEYS.includes(key)) return undefined;
  return readSettingFile(ctx.db, key);
}
