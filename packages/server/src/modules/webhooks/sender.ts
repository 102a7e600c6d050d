import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { PRODUCT_VERSION } from '../../platform/version.ts';
import { assertPublicHost, hostOf, publicOnlyLookup } from './address.ts';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  /** The start of the answer's body. */
  response: string | null;
  error: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  publicOnly: boolean;
  keepResponse: boolean;
}

const RESPONSE_EXCERPT_CHARS = 1000;
const RESPONSE_READ_BYTES = 8192;

/**
 * Posts one delivery and waits at most `timeoutMs` for the whole answer. A 2xx status is a success;
 * anything else (redirects are not followed, as Standard Webhooks asks) is a failure with its
 * excerpt. With `publicOnly`, the connection goes to public addresses only; without `keepResponse`,
 * the answer's body is not kept.
 */
export async function postWebhook(target: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const finish = (result: Omit<SendResult, 'durationMs'>): SendResult => ({ ...result, durationMs: Math.round(performance.now() - started) });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return finish({ ok: false, statusCode: null, response: null, error: 'The URL is not valid' });
  }
  if (options.publicOnly && net.isIP(hostOf(url))) {
    try {
      await assertPublicHost(hostOf(url));
    } catch (error) {
      return finish({ ok: false, statusCode: null, response: null, error: (error as Error).message });
    }
  }
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(finish(result));
    };
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': `license-manager-webhooks/${PRODUCT_VERSION}`,
          ...headers,
        },
        agent: false,
        ...(options.publicOnly ? { lookup: publicOnlyLookup } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_READ_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        const done = () => {
          const statusCode = response.statusCode ?? null;
          const text = Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS);
          const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
          settle({ ok, statusCode, response: options.keepResponse ? text || null : null, error: ok ? null : `The receiver answered ${statusCode}` });
        };
        response.on('end', done);
        response.on('error', (error) => settle({ ok: false, statusCode: response.statusCode ?? null, response: null, error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      settle({ ok: false, statusCode: null, response: null, error: `No answer within ${Math.round(options.timeoutMs / 1000)} s` });
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => settle({ ok: false, statusCode: null, response: null, error: describeNetworkError(error) }));
    request.end(body);
  });
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'Connection refused';
    case 'ENOTFOUND':
      return 'The host name does not resolve';
    case 'ECONNRESET':
      return 'The connection was reset';
    default:
      return error.message || String(error.code);
  }
}
