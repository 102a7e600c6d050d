import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { WebhookFailureReason } from '@lm/contract/webhook';
import { PRODUCT_VERSION } from '../../platform/version.ts';
import { assertPublicHost, hostOf, NonPublicAddressError, publicOnlyLookup } from './address.ts';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  /** The start of the answer's body. */
  response: string | null;
  /** Why it failed, as a code the web words in the reader's language; null when it succeeded. */
  reason: WebhookFailureReason | null;
  /** The technical detail of a failure, in English, for operators and the log. */
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
    return finish({ ok: false, statusCode: null, response: null, reason: 'invalidUrl', error: 'The URL is not valid' });
  }
  if (options.publicOnly && net.isIP(hostOf(url))) {
    try {
      await assertPublicHost(hostOf(url));
    } catch (error) {
      return finish({ ok: false, statusCode: null, response: null, ...describeNetworkError(error as NodeJS.ErrnoException) });
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
          settle({
            ok,
            statusCode,
            response: options.keepResponse ? text || null : null,
            reason: ok ? null : 'httpStatus',
            error: ok ? null : `The receiver answered ${statusCode}`,
          });
        };
        response.on('end', done);
        response.on('error', (error) => settle({ ok: false, statusCode: response.statusCode ?? null, response: null, ...describeNetworkError(error) }));
      },
    );
    const timer = setTimeout(() => {
      settle({ ok: false, statusCode: null, response: null, reason: 'timeout', error: `No answer within ${Math.round(options.timeoutMs / 1000)} s` });
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => settle({ ok: false, statusCode: null, response: null, ...describeNetworkError(error) }));
    request.end(body);
  });
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL', 'ENONAME']);
const RESET_CODES = new Set(['EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);

/**
 * The reason code of a failed connection or request, with its technical detail: the words of the
 * common cases, else Node's own message with its code (the certificate errors of TLS do not name it).
 */
export function describeNetworkError(error: NodeJS.ErrnoException): { reason: WebhookFailureReason; error: string } {
  const code = error.code ?? '';
  const detail = () => {
    const message = error.message || code || String(error);
    return code && !message.includes(code) ? `${message} (${code})` : message;
  };
  if (error instanceof NonPublicAddressError) return { reason: 'privateAddress', error: error.message };
  if (code === 'ECONNREFUSED') return { reason: 'connectionRefused', error: 'Connection refused' };
  if (code === 'ENOTFOUND') return { reason: 'dnsFailed', error: 'The host name does not resolve' };
  if (code === 'ECONNRESET') return { reason: 'connectionReset', error: 'The connection was reset' };
  if (DNS_CODES.has(code)) return { reason: 'dnsFailed', error: detail() };
  if (RESET_CODES.has(code) || error.message === 'aborted') return { reason: 'connectionReset', error: detail() };
  if (UNREACHABLE_CODES.has(code)) return { reason: 'unreachable', error: detail() };
  if (code === 'ETIMEDOUT') return { reason: 'timeout', error: detail() };
  // OpenSSL's verification codes (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT,
  // UNABLE_TO_VERIFY_LEAF_SIGNATURE…), Node's TLS and SSL errors, and a failed handshake (EPROTO).
  if (/CERT|^ERR_TLS_|^ERR_SSL_|^EPROTO$/.test(code) || 'library' in error) return { reason: 'tlsFailed', error: detail() };
  return { reason: 'other', error: detail() };
}
