import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './platform/config.ts';
import type { AppContext } from './platform/context.ts';
import { openDatabase, type Database } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrate.ts';
import { Limits } from './platform/limits/limiter.ts';
import { limitedClient } from './platform/limits/client-address.ts';
import { createMailService, mailBacklog } from './platform/mail/index.ts';
import { Metrics } from './platform/metrics/index.ts';
import { registerHttpMetrics } from './platform/metrics/http.ts';
import { PRODUCT_VERSION } from './platform/version.ts';
import { registerSessionAuth } from './modules/session/request-user.ts';
import { registerCsrfProtection } from './platform/http/csrf.ts';
import { REDACTED, REDACTED_LOG_PATHS, registerAccessLog, serializeRequest } from './platform/http/access-log.ts';
import { answerClientError, registerErrorHandling, sendError } from './platform/http/errors.ts';
import { registerShuttingDown, type ShuttingDown } from './platform/http/shutting-down.ts';
import { registerReadRouting } from './platform/http/read-routing.ts';
import { markSessionWrote } from './modules/session-store/repo.ts';
import { markApiTokenWrote } from './modules/api-tokens/repo.ts';
import { registerSecurityHeaders } from './platform/http/security-headers.ts';
import { inlineScriptHashes, serveWebApp } from './platform/http/web-app.ts';
import { openApiOptions, swaggerUiOptions } from './platform/http/api-docs.ts';
import { refuseUndeclaredQueryParameters, strictQueryValidatorCompiler } from './platform/http/query-parameters.ts';
import { apiModules } from './modules/index.ts';
import { clientProtocolRoutes } from './modules/client-protocol/routes.ts';
import { releaseClientRoutes } from './modules/releases/client-routes.ts';
import { registerTwoFactorGate } from './modules/two-factor/gate.ts';
import { themeRoutes } from './modules/settings/routes.ts';
import { metricsRoutes } from './modules/metrics/routes.ts';
import { registerTokenAuth } from './modules/api-tokens/auth.ts';
import { registerWebhookEventSources } from './modules/webhooks/event-sources.ts';
import { webhookBacklog } from './modules/webhooks/queue.ts';
import { WebhookWorker } from './modules/webhooks/worker.ts';

export interface BuildOptions {
  /** An already open database (tests share one per file); otherwise the config's is opened. */
  database?: Database;
  logger?: boolean;
  /** Where the log goes instead of stdout (tests read it). */
  logStream?: NodeJS.WritableStream;
}

export type App = FastifyInstance & { ctx: AppContext; webhooks: WebhookWorker; shuttingDown: ShuttingDown };

/** The whole server as a Fastify instance; `main.ts` listens with it, tests call `inject` on it. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : { level: config.logLevel, redact: { paths: REDACTED_LOG_PATHS, censor: REDACTED }, serializers: { req: serializeRequest }, ...(options.logStream ? { stream: options.logStream } : {}) },
    // One line per request instead of two, with its address redacted: registerAccessLog.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: proxyTrust(config.trustProxy),
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: 500 },
    // Requests that arrive while closing are answered by registerShuttingDown, in the API's form.
    return503OnClosing: false,
    frameworkErrors: sendError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(strictQueryValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const database = options.database ?? openDatabase(config.database, { onConnectionError: (error) => app.log.warn({ err: error }, 'database connection lost'), log: app.log });
  await migrateToLatest(database.db);
  await database.replicas?.start();
  const mail = createMailService(config, database.db, app.log);
  const metrics = new Metrics({
    database,
    probe: () => sql`select 1`.execute(database.db),
    sqliteFile: config.database.kind === 'sqlite' ? config.database.file : undefined,
    version: PRODUCT_VERSION,
  });
  metrics.addOutbox('mail', () => mailBacklog(database.db));
  metrics.addOutbox('webhook', () => webhookBacklog(database.db));
  const ctx: AppContext = { ...database, config, log: app.log, mail, metrics, limits: new Limits(database.db, config.rateLimits) };
  app.decorate('ctx', ctx);
  registerWebhookEventSources();
  const webhooks = new WebhookWorker({ ...ctx, log: app.log.child({ component: 'webhooks' }) }, config.webhookWorker);
  app.decorate('webhooks', webhooks);
  // The workers stop (finishing a pass under way) before the database closes.
  app.addHook('onClose', async () => {
    await webhooks.stop();
    await mail.stop();
    if (!options.database) await database.close();
  });
  mail.start();
  webhooks.start();

  registerErrorHandling(app);
  registerAccessLog(app);
  app.decorate('shuttingDown', registerShuttingDown(app));
  registerHttpMetrics(app, metrics);
  // With rateLimits off (tests not about them) every request is on the allow list.
  await app.register(rateLimit, { global: false, enableDraftSpec: false, allowList: () => !config.rateLimits, keyGenerator: (request) => limitedClient(request.ip) });
  await app.register(swagger, openApiOptions(PRODUCT_VERSION));

  // The desktop protocol answers software, not people: no cookies, sessions, tokens, CSRF or page
  // headers, which cost each of its calls more than its own lookup (bench/scenarios/protocol.ts).
  await app.register(clientProtocolRoutes(ctx), { prefix: '/api' });
  await app.register(releaseClientRoutes(ctx), { prefix: '/api' });
  await app.register(async (web) => {
    // The site's https name, if it has one: HSTS, the upgrade of a page's requests and the scheme of
    // a same-site Origin follow it (security-headers.ts, csrf.ts).
    const httpsHost = config.publicUrl.startsWith('https:') ? new URL(config.publicUrl).host : null;
    registerSecurityHeaders(web, { 'img-src': ["'self'", 'data:', 'https:'], 'style-src': ["'self'", "'unsafe-inline'"], 'script-src': ["'self'", ...inlineScriptHashes(config.webDist)] }, httpsHost);
    // API answers hold accounts, licenses and secrets: no cache keeps them unless a route says so.
    web.addHook('onRequest', (request, reply, done) => {
      if (request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
      done();
    });
    await web.register(cookie);
    await web.register(multipart, { limits: { fileSize: 2 * 1024 * 1024, files: 1 } });
    registerCsrfProtection(web, { httpsHost });
    registerSessionAuth(web, ctx);
    registerTokenAuth(web, ctx);
    if (database.replicas && config.database.kind === 'postgres') {
      registerReadRouting(web, {
        readYourWritesMs: config.database.replicas?.readYourWritesMs ?? 0,
        markWrote: (request, at) =>
          request.apiToken ? markApiTokenWrote(database.db, request.apiToken.id, at) : request.sessionTokenHash ? markSessionWrote(database.db, request.sessionTokenHash, at) : undefined,
      });
    }

    await web.register(swaggerUi, swaggerUiOptions);
    web.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    await web.register(
      async (api) => {
        registerTwoFactorGate(api, ctx);
        refuseUndeclaredQueryParameters(api);
        for (const module of apiModules(ctx)) await api.register(module);
      },
      { prefix: '/api' },
    );
    await web.register(themeRoutes(ctx));
    await web.register(metricsRoutes(ctx));
    await serveWebApp(web, config.webDist);
  });
  return app as unknown as App;
}

/**
 * TRUST_PROXY as Fastify takes it. A number of hops becomes a function trusting the nearest N
 * addresses: Fastify itself ignores the forwarded headers for a plain number (it cannot tell a proxy
 * from a client that connects directly), so a hop count assumes the port is reachable through the
 * proxies only; addresses or ranges are the safer setting (README, "Running behind a proxy").
 */
function proxyTrust(trust: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}
