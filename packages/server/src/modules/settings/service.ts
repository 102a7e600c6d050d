import {
  FILE_SETTING_KEYS,
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
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { deleteSetting, readAllSettings, readSetting, writeSetting } from './repo.ts';

/** The public theme settings: what any visitor may read. */
export async function publicSettings(ctx: AppContext): Promise<SettingsMap> {
  const all = await readAllSettings(ctx.db);
  return Object.fromEntries(SETTING_KEYS.filter(isPublicSettingKey).map((key) => [key, all[key] ?? null]));
}

/** Every known key for administrators, null where unset, secrets masked. */
export async function allSettings(ctx: AppContext): Promise<SettingsMap> {
  const all = await readAllSettings(ctx.db);
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

function knownKey(key: string): SettingKey {
  if (!isSettingKey(key)) throw notFound('Setting');
  return key;
}

export async function updateSetting(ctx: AppContext, rawKey: string, value: unknown): Promise<void> {
  const key = knownKey(rawKey);
  if (FILE_SETTING_KEYS.includes(key)) {
    throw new AppError(400, 'ERR_VALIDATION', `${key} is set by uploading a file`, { details: [{ path: 'value', message: 'upload a file' }] });
  }
  const parsed = settingValueSchema(key).safeParse(value);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: ['value', ...issue.path].join('.'), message: issue.message, code: issue.code }));
    throw new AppError(400, 'ERR_VALIDATION', `${key} is not an allowed value`, { details });
  }
  await writeSetting(ctx.db, key, parsed.data);
}

export async function removeSetting(ctx: AppContext, rawKey: string): Promise<void> {
  await deleteSetting(ctx.db, knownKey(rawKey));
}
