/**
 * `npm test`: type check, lint, unit and server tests (SQLite and PostgreSQL), then the browser
 * journeys against the built app. Ends with one line "N passed, N failed, N skipped" over all suites.
 * With CI=true nothing may be skipped: a missing PostgreSQL or Chromium fails the run.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-test-reports-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
const failedSteps: string[] = [];

function run(name: string, command: string, args: string[]): boolean {
  console.log(`\n=== ${name} ===`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: process.env });
  if (result.status !== 0) failedSteps.push(name);
  return result.status === 0;
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

function vitest(name: string, args: string[]): void {
  const outputFile = path.join(reports, `${name}.json`);
  run(name, 'npx', ['vitest', 'run', ...args, '--reporter=default', '--reporter=./scripts/failures-as-they-happen.ts', '--reporter=json', `--outputFile=${outputFile}`]);
  if (!fs.existsSync(outputFile)) return;
  const report = JSON.parse(fs.readFileSync(outputFile, 'utf8')) as VitestReport;
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + report.numTodoTests;
}

const only = process.argv[2];
if (!only || only === 'static') {
  run('typecheck', 'npm', ['run', 'typecheck', '--silent']);
  run('lint', 'npm', ['run', 'lint', '--silent']);
}
if (!only || only === 'server') vitest('unit-and-server', []);
if (!only || only === 'e2e') {
  if (run('build web app', 'npm', ['run', 'build', '--silent'])) vitest('e2e', ['--config', 'e2e/vitest.config.ts']);
}

fs.rmSync(reports, { recursive: true, force: true });
if (failedSteps.length) console.log(`\nFailed steps: ${failedSteps.join(', ')}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedSteps.length || totals.failed ? 1 : 0);
