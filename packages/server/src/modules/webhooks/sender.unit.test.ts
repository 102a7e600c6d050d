import http from 'node:http';
import type net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { NonPublicAddressError } from './address.ts';
import { describeNetworkError, postWebhook } from './sender.ts';

const OPTIONS = { timeoutMs: 5_000, publicOnly: false, keepResponse: true };

const errno = (code: string, message = `connect ${code} 192.0.2.1:443`) => Object.assign(new Error(message), { code });

describe('the reason code of a failed delivery', () => {
  const server = http.createServer((_request, response) => response.end('plain http'));
  const listening = new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('names the common network errors, keeping the English detail', () => {
    expect(describeNetworkError(errno('ECONNREFUSED'))).toEqual({ reason: 'connectionRefused', error: 'Connection refused' });
    expect(describeNetworkError(errno('ENOTFOUND'))).toEqual({ reason: 'dnsFailed', error: 'The host name does not resolve' });
    expect(describeNetworkError(errno('EAI_AGAIN', 'getaddrinfo EAI_AGAIN crm.example.com'))).toEqual({ reason: 'dnsFailed', error: 'getaddrinfo EAI_AGAIN crm.example.com' });
    expect(describeNetworkError(errno('ECONNRESET'))).toEqual({ reason: 'connectionReset', error: 'The connection was reset' });
    expect(describeNetworkError(errno('EHOSTUNREACH'))).toMatchObject({ reason: 'unreachable' });
    expect(describeNetworkError(errno('ETIMEDOUT'))).toMatchObject({ reason: 'timeout' });
    expect(describeNetworkError(errno('CERT_HAS_EXPIRED', 'certificate has expired'))).toEqual({ reason: 'tlsFailed', error: 'certificate has expired (CERT_HAS_EXPIRED)' });
    expect(describeNetworkError(errno('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"))).toMatchObject({ reason: 'tlsFailed' });
    expect(describeNetworkError(new NonPublicAddressError('crm.example.com is not a public address (10.0.0.5)'))).toEqual({
      reason: 'privateAddress',
      error: 'crm.example.com is not a public address (10.0.0.5)',
    });
    expect(describeNetworkError(errno('EWEIRD', 'something odd'))).toEqual({ reason: 'other', error: 'something odd (EWEIRD)' });
  });

  it('tells an invalid URL, an inner address where only public ones may be reached, and a failed TLS handshake', async () => {
    expect(await postWebhook('not a url', {}, '{}', OPTIONS)).toMatchObject({ ok: false, reason: 'invalidUrl', error: 'The URL is not valid' });
    expect(await postWebhook('http://127.0.0.1:9/hooks', {}, '{}', { ...OPTIONS, publicOnly: true })).toMatchObject({ ok: false, reason: 'privateAddress', statusCode: null });
    // HTTPS to a server that speaks plain HTTP: the handshake fails.
    expect(await postWebhook(`https://127.0.0.1:${await listening}/hooks`, {}, '{}', OPTIONS)).toMatchObject({ ok: false, reason: 'tlsFailed', statusCode: null });
    expect(await postWebhook(`http://127.0.0.1:${await listening}/hooks`, {}, '{}', OPTIONS)).toMatchObject({ ok: true, reason: null, error: null, statusCode: 200 });
  });
});
