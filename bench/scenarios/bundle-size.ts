import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Scenario } from '../run.ts';

const WEB = path.join(import.meta.dirname, '../../packages/web');
const DIST = path.join(WEB, 'dist');

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  src?: string;
}

/** The JavaScript a first visit of `/` loads before the login form shows: entry, home page, English messages, and their static imports. */
function firstLoadFiles(manifest: Record<string, ManifestChunk>): Set<string> {
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    chunk.imports?.forEach(visit);
  };
  const entry = Object.keys(manifest).find((key) => manifest[key].isEntry)!;
  visit(entry);
  // The home page, and the messages of the default language (an English browser's first visit).
  for (const suffix of ['app/HomePage.tsx', 'src/locales/en.json', 'zod/v4/locales/en.js']) {
    const key = Object.keys(manifest).find((name) => name.endsWith(suffix));
    if (key) visit(key);
  }
  return files;
}

const scenario: Scenario = {
  name: 'web-bundle',
  description: 'gzipped JavaScript of the first load of / (DESIGN.md section 9: under 250 KB)',
  async run() {
    const build = spawnSync('npx', ['vite', 'build', '--manifest'], { cwd: WEB, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(build.stderr);
    const manifest = JSON.parse(fs.readFileSync(path.join(DIST, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
    const first = firstLoadFiles(manifest);
    const gzipped = (file: string) => gzipSync(fs.readFileSync(path.join(DIST, file))).length / 1024;
    const firstKb = [...first].reduce((sum, file) => sum + gzipped(file), 0);
    const allJs = fs.readdirSync(path.join(DIST, 'assets')).filter((file) => file.endsWith('.js'));
    const totalKb = allJs.reduce((sum, file) => sum + gzipped(`assets/${file}`), 0);
    return [
      { name: 'first load of / (gzipped JS)', value: firstKb, unit: 'KB', target: { max: 250 } },
      { name: `all JS chunks together (${allJs.length} files, gzipped)`, value: totalKb, unit: 'KB' },
    ];
  },
};

export default scenario;
