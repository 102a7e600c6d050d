import { buildApp, type App } from './app.ts';
import { loadConfig, type Config } from './platform/config.ts';
import { loadEnvFile } from './platform/env-file.ts';
import { waitForDatabase } from './platform/db/wait.ts';
import { describeStartError } from './platform/start-errors.ts';
import { startMessage } from './platform/start-messages.ts';
import { ensureAdministrator } from './modules/users/bootstrap.ts';

async function main(): Promise<void> {
  let config: Config | undefined;
  try {
    const envFile = loadEnvFile();
    config = loadConfig();
    await waitForDatabase(config);
    const app = await buildApp(config);
    if (envFile) app.log.info({ file: envFile }, 'configuration read from the environment and .env');
    stopOnSignals(app, config.stopGraceSeconds);
    const started = answerStartingUntilReady(app);
    await app.listen({ port: config.port, host: config.host });
    // Only now that the port is ours: a start that fails to listen creates no account whose
    // one-time password nobody saw.
    announceAdministrator(config, await ensureAdministrator(app.ctx));
    started();
  } catch (error) {
    console.error(describeStartError(error, config));
    if (config && (config.logLevel === 'debug' || config.logLevel === 'trace')) console.error(error);
    process.exit(1);
  }
}

/**
 * Between opening the port and finishing the start (the first administrator), every request
 * answers 503 ERR_STARTING, health included: a load balancer or a script waiting for health sends
 * nothing the server could not yet answer right. Answers the function that ends this.
 */
function answerStartingUntilReady(app: App): () => void {
  let ready = false;
  app.addHook('onRequest', (_request, reply, done) => {
    if (ready) return done();
    reply.status(503).header('retry-after', '1').send({ error: 'ERR_STARTING', message: 'The server is starting; please try again in a moment' });
  });
  return () => {
    ready = true;
  };
}

/** The first administrator: a banner on a terminal, one JSON line (with the same words) in a log stream. */
function announceAdministrator(config: Config, admin: Awaited<ReturnType<typeof ensureAdministrator>>): void {
  if (!admin) return;
  const lines = [
    '',
    '  The first administrator account was created.',
    `  Log in at ${config.publicUrl}/login as ${admin.email}`,
    admin.password ? `  with the password ${admin.password}  (shown only this once; change it after logging in)` : '  with the password from ADMIN_PASSWORD.',
    '',
  ];
  startMessage(lines.join('\n'), { level: 'warn', fields: { event: 'first-administrator', email: admin.email } });
}

/**
 * SIGTERM (systemd, a container runtime) and SIGINT (Ctrl-C) stop the server gracefully: it takes
 * no new connections, lets the requests in flight finish, stops its workers and closes the
 * database. Requests still running after STOP_GRACE_SECONDS are answered 503 ERR_SHUTTING_DOWN (never
 * a reset connection), then it ends; at a second signal it ends at once.
 */
function stopOnSignals(app: App, graceSeconds: number): void {
  let stopping = false;
  // A client's keep-alive connection would hold the stop until it idles out: answers given while
  // stopping close their connection (shutting-down.ts), and connections that fall idle are closed as they do.
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      app.log.warn({ signal }, 'stopping at once');
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal }, 'stopping: finishing the requests in flight');
    setInterval(() => app.server.closeIdleConnections(), 100).unref();
    setTimeout(() => {
      void app.shuttingDown.answerInFlight().then((count) => {
        app.log.error({ requests: count, graceSeconds }, 'requests still running after STOP_GRACE_SECONDS: answered 503 ERR_SHUTTING_DOWN; ending');
        process.exit(1);
      });
    }, graceSeconds * 1000).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'stopping failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // A promise nobody awaited must not end a server that serves everyone else: it is logged as the bug it is.
  process.on('unhandledRejection', (reason) => app.log.error({ err: reason }, 'unhandled promise rejection'));
}

void main();
