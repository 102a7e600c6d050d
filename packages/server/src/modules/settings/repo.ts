import type { Executor } from '../../platform/db/database.ts';

export async function readAllSettings(db: Executor): Promise<Record<string, unknown>> {
  const rows = await db.selectFrom('settings').select(['key', 'value']).execute();
  return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
}

export async function readSetting(db: Executor, key: string): Promise<unknown> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row ? (JSON.parse(row.value) as unknown) : undefined;
}

export async function writeSetting(db: Executor, key: string, value: unknown): Promise<void> {
  const now = new Date().toISOString();
  const json = JSON.stringify(value);
  await db
    .insertInto('settings')
    .values({ key, value: json, updated_at: now })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value: json, updated_at: now }))
    .execute();
}

export async function deleteSetting(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('settings').where('key', '=', key).execute();
}

export interface SettingFile {
  contentType: string;
  data: Uint8Array;
  version: string;
}

export async function readSettingFile(db: Executor, key: string): Promise<SettingFile | undefined> {
  const row = await db.selectFrom('setting_files').select(['content_type', 'data', 'version']).where('key', '=', key).executeTakeFirst();
  return row ? { contentType: row.content_type, data: row.data, version: row.version } : undefined;
}

export async function writeSettingFile(db: Executor, key: string, file: SettingFile): Promise<void> {
  const values = { content_type: file.contentType, data: file.data, size: file.data.byteLength, version: file.version, updated_at: new Date().toISOString() };
  await db
    .insertInto('setting_files')
    .values({ key, ...values })
    .onConflict((conflict) => conflict.column('key').doUpdateSet(values))
    .execute();
}

export async function deleteSettingFile(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('setting_files').where('key', '=', key).execute();
}
