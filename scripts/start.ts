/**
 * `npm start`: the server, serving the web app as built. The build is made (or made again) only when
 * there is none or its sources changed since; otherwise the start goes straight to the server, which
 * runs in this process (so that signals reach it directly, also under systemd).
 */
import { loadEnvFile } from '../packages/server/src/platform/env-file.ts';
import { startMessage } from '../packages/server/src/platform/start-messages.ts';
import { buildWebApp, canBuildWebApp, planStart, webBuildState } from './web-build.ts';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

try {
  loadEnvFile();
} catch (error) {
  fail((error as Error).message);
}

// WEB_DIST names a build that the operator manages: served as it is.
if (!process.env.WEB_DIST) {
  const plan = planStart(webBuildState(), canBuildWebApp());
  if (plan.action === 'refuse') fail(plan.message);
  if (plan.action === 'build') {
    // Plain lines on a terminal, JSON lines in a log stream (as the server's own).
    startMessage(plan.message);
    const started = Date.now();
    if (!buildWebApp({ quiet: true })) fail('Cannot start: the web app did not build (see the errors above).');
    startMessage(`Built the web app in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  }
}

await import('../packages/server/src/main.ts');
