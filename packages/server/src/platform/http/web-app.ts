import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { shownPath } from './errors.ts';

/** Vite names every built asset by a hash of its content: the name changes whenever a byte does. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Everything else (index.html, version.json, favicon) is asked again each time, answered 304 while unchanged (ETag). */
const REVALIDATE = 'no-cache';
/**
 * Security headers that only a document (a page) acts on: a script, a style sheet or an image
 * answered with them ignores them. They are dropped from the app's asset files, whose answers a first
 * load counts by the dozen; X-Content-Type-Options, Cross-Origin-Resource-Policy, Referrer-Policy
 * (a style sheet's own requests follow it) and HSTS stay.
 */
const DOCUMENT_ONLY_HEADERS = [
  'content-security-policy',
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

/**
 * The CSP sources of the inline scripts of the built index.html (its fallback for an app script that
 * cannot load): `'sha256-…'` of each, so that script-src allows them and nothing else inline.
 */
export function inlineScriptHashes(webDist: string): string[] {
  let html: string;
  try {
    html = fs.readFileSync(path.join(webDist, 'index.html'), 'utf8');
  } catch {
    return [];
  }
  return [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => `'sha256-${createHash('sha256').update(match[1], 'utf8').digest('base64')}'`);
}

/**
 * The built web app with history-mode fallback; unknown /api paths stay JSON 404s. Files are sent
 * pre-compressed (the build writes a .br and a .gz beside each text file) in the encoding the client
 * accepts, with `Vary: Accept-Encoding`; hashed assets are cached for a year as immutable.
 */
export async function serveWebApp(app: FastifyInstance, webDist: string): Promise<void> {
  const indexFile = path.join(webDist, 'index.html');
  const hasWebApp = fs.existsSync(indexFile);
  if (hasWebApp) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: false,
      preCompressed: true,
      // The compressed copies are encodings of their file, not files of their own.
      globIgnore: ['**/*.br', '**/*.gz'],
      cacheControl: false,
      setHeaders(reply, filePath) {
        const relative = path.relative(webDist, filePath).split(path.sep).join('/');
        const asset = relative.startsWith('assets/');
        reply.header('cache-control', asset ? IMMUTABLE : REVALIDATE);
        if (asset || !/\.html(\.(br|gz))?$/.test(relative)) for (const name of DOCUMENT_ONLY_HEADERS) reply.removeHeader(name);
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const wantsPage = request.method === 'GET' && !request.url.startsWith('/api') && !path.extname(request.url.split('?')[0]);
    if (hasWebApp && wantsPage) return reply.sendFile('index.html');
    return reply.status(404).send({ error: 'ERR_NOT_FOUND', message: `${request.method} ${shownPath(request.url)} not found` });
  });
}
