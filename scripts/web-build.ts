/**
 * The web app's build, shared by `npm run build` and `npm start`: a build records a hash of its
 * inputs beside its output, so that a start serves the existing build while the sources are what it
 * was built from, and builds again only when they changed (or when there is no build yet).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

/** Where the build goes, under a checkout's root. */
export const webDist = (root = ROOT) => path.join(root, 'packages/web/dist');
/** Not served: @fastify/static routes only the files its glob finds, and the glob skips dot files. */
const stampFile = (root: string) => path.join(webDist(root), '.build-inputs');

/** What the bundle is made of: the web app, the contract it imports, and the locked dependency versions. */
const INPUTS = [
  'packages/web/src',
  'packages/web/public',
  'packages/web/index.html',
  'packages/web/vite.config.ts',
  'packages/web/package.json',
  'packages/contract/src',
  'packages/contract/package.json',
  // The guides the web app serves (features/help).
  'docs',
  'package-lock.json',
];

function filesUnder(root: string, relative: string): string[] {
  const absolute = path.join(root, relative);
  if (!fs.existsSync(absolute)) return [];
  if (!fs.statSync(absolute).isDirectory()) return [relative];
  return fs
    .readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** A hash of every input file's path and content (a few hundred small files: milliseconds). */
export function webBuildInputsHash(root = ROOT): string {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap((input) => filesUnder(root, input)).sort()) {
    hash.update(`${file.split(path.sep).join('/')}\0`);
    hash.update(fs.readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

export type WebBuildState = 'current' | 'stale' | 'missing';

export function webBuildState(root = ROOT): WebBuildState {
  if (!fs.existsSync(path.join(webDist(root), 'index.html'))) return 'missing';
  const stamp = stampFile(root);
  const recorded = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8').trim() : '';
  return recorded === webBuildInputsHash(root) ? 'current' : 'stale';
}

/** Vite's command-line script, or null when the build tools are not installed (`npm ci --omit=dev`). */
function viteScript(root: string): string | null {
  try {
    const manifest = createRequire(path.join(root, 'packages/web/package.json')).resolve('vite/package.json');
    return path.join(path.dirname(manifest), 'bin/vite.js');
  } catch {
    return null;
  }
}

export function canBuildWebApp(root = ROOT): boolean {
  return viteScript(root) !== null;
}

/** Builds the web app into packages/web/dist and records what it was built from; false when it failed. */
export function buildWebApp(options: { quiet?: boolean; root?: string } = {}): boolean {
  const root = options.root ?? ROOT;
  const vite = viteScript(root);
  if (!vite) throw new Error('The build tools are not installed: run `npm ci` (with the devDependencies) first');
  const inputs = webBuildInputsHash(root);
  fs.rmSync(stampFile(root), { force: true });
  const result = spawnSync(process.execPath, [vite, 'build', ...(options.quiet ? ['--logLevel', 'warn'] : [])], { cwd: path.join(root, 'packages/web'), stdio: 'inherit' });
  if (result.status !== 0) return false;
  fs.writeFileSync(stampFile(root), `${inputs}\n`);
  return true;
}

export type StartPlan = { action: 'serve' } | { action: 'build'; message: string } | { action: 'refuse'; message: string };

/** What `npm start` does about the web app: serve the build, build it first, or refuse with the way out. */
export function planStart(state: WebBuildState, canBuild: boolean, dist = webDist()): StartPlan {
  if (state === 'current') return { action: 'serve' };
  if (canBuild) return { action: 'build', message: state === 'missing' ? 'Building the web app (first start)…' : 'Building the web app (its sources changed since the last build)…' };
  return {
    action: 'refuse',
    message:
      state === 'missing'
        ? `Cannot start: the web app is not built (${dist}) and the build tools are not installed. Run \`npm ci && npm run build\` first; \`npm ci --omit=dev\` may remove the build tools afterwards.`
        : `Cannot start: the web app in ${dist} was built from other sources than these, and the build tools are not installed. Run \`npm ci && npm run build\` again, then \`npm ci --omit=dev\`.`,
  };
}
