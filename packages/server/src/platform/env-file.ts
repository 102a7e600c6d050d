import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from './config.ts';

/**
 * Reads `.env` in the working directory into the environment (DESIGN.md section 8). A variable that
 * the environment already sets wins over the file (an empty value counts as unset, as in loadConfig),
 * so `PORT=4000 npm start` overrides the file. Answers the file read, or null when there is none.
 */
export function loadEnvFile(file = path.resolve('.env'), env: Record<string, string | undefined> = process.env): string | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] === undefined || env[name] === '') env[name] = value;
  }
  return file;
}
