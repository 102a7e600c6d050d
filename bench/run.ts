/**
 * `npm run bench [name…]`: runs the scenarios in bench/scenarios (all, or those named), prints each
 * figure with its target, and writes bench/results/<scenario>.json. Figures are ratios or
 * percentiles taken in the same run, never timed assertions in tests (DESIGN.md section 9).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The target, e.g. { max: 50 } or { min: 0.5 }. */
  target?: { max?: number; min?: number };
}

export interface Scenario {
  name: string;
  description: string;
  run(): Promise<Figure[]>;
}

const SCENARIOS_DIR = path.join(import.meta.dirname, 'scenarios');
const RESULTS_DIR = path.join(import.meta.dirname, 'results');

function meets(figure: Figure): boolean | undefined {
  if (!figure.target) return undefined;
  if (figure.target.max !== undefined && figure.value > figure.target.max) return false;
  if (figure.target.min !== undefined && figure.value < figure.target.min) return false;
  return true;
}

function targetText(figure: Figure): string {
  if (!figure.target) return '';
  const parts = [];
  if (figure.target.max !== undefined) parts.push(`≤ ${figure.target.max}`);
  if (figure.target.min !== undefined) parts.push(`≥ ${figure.target.min}`);
  return `${parts.join(' ')} ${figure.unit}`;
}

const wanted = process.argv.slice(2);
const files = fs.readdirSync(SCENARIOS_DIR).filter((file) => file.endsWith('.ts')).sort();
const known = new Set(files.map((file) => file.replace(/\.ts$/, '')));
let missed = 0;
let ran = 0;
fs.mkdirSync(RESULTS_DIR, { recursive: true });
for (const file of files) {
  const scenario = (await import(pathToFileURL(path.join(SCENARIOS_DIR, file)).href)).default as Scenario;
  // A scenario is named by its own name or its file's, so `npm run bench bundle-size` runs web-bundle.
  if (wanted.length && !wanted.includes(scenario.name) && !wanted.includes(file.replace(/\.ts$/, ''))) continue;
  ran++;
  console.log(`\n## ${scenario.name}: ${scenario.description}`);
  const figures = await scenario.run();
  for (const figure of figures) {
    const ok = meets(figure);
    if (ok === false) missed++;
    const mark = ok === undefined ? ' ' : ok ? '✓' : '✗';
    console.log(`${mark} ${figure.name.padEnd(58)} ${String(Math.round(figure.value * 100) / 100).padStart(10)} ${figure.unit.padEnd(8)} ${targetText(figure)}`);
  }
  fs.writeFileSync(path.join(RESULTS_DIR, `${scenario.name}.json`), JSON.stringify({ scenario: scenario.name, at: new Date().toISOString(), figures }, null, 2));
}
if (!ran) {
  console.error(`No scenario is named ${wanted.join(', ')}; known: ${[...known].join(', ')}`);
  process.exit(2);
}
console.log(missed ? `\n${missed} figure(s) missed their target` : '\nEvery figure met its target');
