/**
 * Mantine's component styles come in two hand-kept lists (first-screen.ts, more.ts); a component
 * whose file is in neither shows unstyled. Which files a component needs is read from Mantine's own
 * modules: every `<Name>.module.mjs` reachable from it is one `styles/<Name>.css`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '..');

function packageDir(name: string): string {
  for (let dir = SRC; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
  }
  throw new Error(`${name} is not installed`);
}

const CORE_STYLES = path.join(packageDir('@mantine/core'), 'styles');

/** The value names imported from a module (`import { A, type B, C as D } from 'x'`: A and C). */
function namedImports(code: string): { names: string[]; from: string }[] {
  return [...code.matchAll(/^import\s+(?!type\s)\{([^}]*)\}\s+from\s+['"]([^'"]+)['"]/gm)].map(([, names, from]) => ({
    names: names
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name && !name.startsWith('type '))
      .map((name) => name.split(/\s+as\s+/)[0]),
    from,
  }));
}

/** The files a Mantine export is built from: its module and, recursively, those it imports. */
function mantineFiles(pkg: string, name: string, seen: Set<string>): void {
  const index = path.join(packageDir(pkg), 'esm/index.mjs');
  const entry = namedImports(fs.readFileSync(index, 'utf8')).find((item) => item.names.includes(name));
  if (entry?.from.startsWith('.')) walkMantine(path.resolve(path.dirname(index), entry.from), seen);
}

function walkMantine(file: string, seen: Set<string>): void {
  if (seen.has(file)) return;
  seen.add(file);
  const code = fs.readFileSync(file, 'utf8');
  for (const [, from] of code.matchAll(/^import\s[^;]*?from\s+"(\.[^"]+)"/gm)) walkMantine(path.resolve(path.dirname(file), from), seen);
  for (const { names, from } of namedImports(code)) if (from.startsWith('@mantine/')) names.forEach((name) => mantineFiles(from, name, seen));
}

/** The core style files the given app files need. */
function neededStyles(files: string[]): Set<string> {
  const seen = new Set<string>();
  for (const file of files) {
    for (const { names, from } of namedImports(fs.readFileSync(file, 'utf8'))) {
      if (/^@mantine\/(core|dates|charts|dropzone|modals|notifications)$/.test(from)) names.forEach((name) => mantineFiles(from, name, seen));
    }
  }
  const styles = [...seen].filter((file) => file.includes('/@mantine/core/') && file.endsWith('.module.mjs')).map((file) => `${path.basename(file, '.module.mjs')}.css`);
  return new Set(styles.filter((style) => fs.existsSync(path.join(CORE_STYLES, style))));
}

/** The app files a module loads at once: its static imports, followed; `import()` is where it stops. */
function staticClosure(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [...seen];
  seen.add(file);
  const code = fs.readFileSync(file, 'utf8');
  for (const [, from] of code.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'(\.[^']+)'/gms)) staticClosure(path.resolve(path.dirname(file), from), seen);
  return [...seen];
}

function listed(file: string): string[] {
  return [...fs.readFileSync(path.join(SRC, 'styles', file), 'utf8').matchAll(/^import '@mantine\/core\/styles\/([\w-]+\.css)';$/gm)].map(([, style]) => style);
}

/** What the first visit of `/` loads: the app, the home page and the form it loads after itself, the toasts. */
const FIRST_SCREEN = ['main.tsx', 'app/HomePage.tsx', 'features/accounts/RegisterForm.tsx', 'app/ToastContainer.tsx'];

const appFiles = (fs.readdirSync(SRC, { recursive: true }) as string[]).filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file)).map((file) => path.join(SRC, file));

describe('Mantine styles', () => {
  it('lists files that exist, each once, each list in the order of Mantine’s styles.css', () => {
    const all = [...listed('first-screen.ts'), ...listed('more.ts')];
    expect(new Set(all).size).toBe(all.length);
    const whole = fs.readFileSync(path.join(CORE_STYLES, '../styles.css'), 'utf8');
    for (const list of ['first-screen.ts', 'more.ts']) {
      const positions = listed(list).map((style) => whole.indexOf(fs.readFileSync(path.join(CORE_STYLES, style), 'utf8').trim().slice(0, 200)));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
  });

  it('has the styles of everything the first screen shows in first-screen.ts', () => {
    const firstScreen = neededStyles(FIRST_SCREEN.flatMap((file) => staticClosure(path.join(SRC, file))));
    expect(firstScreen.size).toBeGreaterThan(10);
    expect([...firstScreen].filter((style) => !listed('first-screen.ts').includes(style))).toEqual([]);
  });

  it('has the styles of every component of the app in one of the two lists, and more.ts nothing else', () => {
    const needed = neededStyles(appFiles);
    const listedAll = new Set([...listed('first-screen.ts'), ...listed('more.ts')]);
    expect([...needed].filter((style) => !listedAll.has(style))).toEqual([]);
    expect(listed('more.ts').filter((style) => !needed.has(style))).toEqual([]);
  });
});
