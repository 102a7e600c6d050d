import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './platform/config.ts';
import type { AppContext } from './platform/context.ts';
import { openDatabase, type Database } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrate.ts';
import { createMailService } from './platform/mail/index.ts';
import { registerSessionAuth } from './platform/http/auth.ts';
import { registerCsrfProtection } from './platform/http/csrf.ts';
import { registerErrorHandling } from './platform/http/errors.ts';
import { registerSecurityHeaders } from './platform/http/security-headers.ts';
import { apiModules } from './modules/index.ts';
import { themeRoutes } from './modules/settings/routes.ts';

export interface BuildOptions {
  /** An already open database (tests share one per file); otherwise the config's is opened. */
  database?: Database;
  logger?: boolean;
}

export type App = FastifyInstance & { ctx: AppContext };

/** The whole server as a Fastify instance; `main.ts` listens with it, tests call `inject` on it. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.logLevel },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: 500 },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const database = options.database ?? openDatabase(config.database);
  await migrateToLatest(database.db);
  const mail = createMailService(config, database.db, app.log);
  const ctx: AppContext = { ...database, config, log: app.log, mail };
  app.decorate('ctx', ctx);
  // The worker stops (finishing a pass under way) before the database closes.
  app.addHook('onClose', async () => {
    await mail.stop();
    if (!options.database) await database.close();
  });
  mail.start();

  registerErrorHandling(app);
  registerSecurityHeaders(app, {
    contentSecurityPolicy: {
      directives: {
        'img-src': ["'self'", 'data:', 'https:'],
        'style-src': ["'self'", "'unsafe-inline'"],
        'script-src': ["'self'"],
      },
    },
  });
  await app.register(cookie);
  await app.register(multipart, { limits: { fileSize: 2 * 1024 * 1024, files: 1 } });
  // With rateLimits off (tests not about them) every request is on the allow list.
  await app.register(rateLimit, { global: false, enableDraftSpec: false, allowList: () => !config.rateLimits });
  registerCsrfProtection(app);
  registerSessionAuth(app, ctx);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'License Manager API', version: '1.0.0', description: 'The HTTP API of the license manager. Errors answer `{ error, message, details? }`.' },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(
    async (api) => {
      for (const module of apiModules(ctx)) await api.register(module);
    },
    { prefix: '/api' },
  );
  await app.register(themeRoutes(ctx));
  await serveWebApp(app, config.webDist);
  return app as unknown as App;
}

/** The built web app with history-mode fallback; unknown /api paths stay JSON 404s. */
async function serveWebApp(app: FastifyInstance, webDist: string): Promise<void> {
  const indexFile = path.join(webDist, 'index.html');
  const hasWebApp = fs.existsSync(indexFile);
  if (hasWebApp) {
    await app.register(fastifyStatic, { root: webDist, wildcard: false, index: false, maxAge: '1h', immutable: false });
  }
  app.setNotFoundHandler((request, reply) => {
    const wantsPage = request.method === 'GET' && !request.url.startsWith('/api') && !path.extname(request.url.split('?')[0]);
    if (hasWebApp && wantsPage) {
      return reply.header('cache-control', 'no-cache').type('text/html').send(fs.createReadStream(indexFile));
    }
    return reply.status(404).send({ error: 'ERR_NOT_FOUND', message: `${request.method} ${request.url.split('?')[0]} not found` });
  });
}
