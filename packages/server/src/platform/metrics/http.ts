import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from './index.ts';

/**
 * The route label of a request: its pattern (`/api/licenses/:id`), never the raw URL, so that the
 * number of series stays bounded whatever clients send. Files of the built web app share one label,
 * and so do the pages the history-mode fallback answers and requests that match nothing.
 */
function routeLabel(request: FastifyRequest, status: number): string {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return status < 400 ? '(web app page)' : '(no route)';
  if (pattern.startsWith('/api/') || pattern === '/metrics' || pattern.startsWith('/theme')) return pattern;
  return '(web app file)';
}

/** Every answer is counted and timed by method, route and status. */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    metrics.httpRequestDuration.observe({ method: request.method, route: routeLabel(request, status), status_code: status }, reply.elapsedTime / 1000);
    done();
  });
}
