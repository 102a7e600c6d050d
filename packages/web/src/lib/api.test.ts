import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError, buildUrl, onAuthFailure, parseJson, setRequestLocale } from './api.ts';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

afterEach(() => vi.unstubAllGlobals());

describe('the API client', () => {
  it('parses ISO timestamps in responses into dates and leaves other strings alone', () => {
    const value = parseJson('{"createdAt":"2026-03-01T10:20:30.000Z","day":"2026-03-01","name":"2026-03-01T10:20:30.000Z x"}') as Record<string, unknown>;
    expect(value.createdAt).toEqual(new Date('2026-03-01T10:20:30.000Z'));
    expect(value.day).toBe('2026-03-01');
    expect(value.name).toBe('2026-03-01T10:20:30.000Z x');
  });

  it('puts every call under /api and leaves out empty query values', () => {
    expect(buildUrl('/users', { offset: 0, filter: '', accessRole: undefined, sort: 'email', ids: [1, 2] })).toBe('/api/users?offset=0&sort=email&ids=1%2C2');
  });

  it('sends cookies and the current locale', async () => {
    const fetch = vi.fn(async () => json(200, { ok: true }));
    vi.stubGlobal('fetch', fetch);
    setRequestLocale('de');
    await api('/health');
    const [, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(init.credentials).toBe('include');
    expect((init.headers as Record<string, string>)['accept-language']).toBe('de');
  });

  it('retries up to 5 times when no answer arrives or the answer is 502, then gives up', async () => {
    vi.useFakeTimers();
    const fetch = vi.fn(async () => json(502, { error: 'ERR_INTERNAL', message: 'bad gateway' }));
    vi.stubGlobal('fetch', fetch);
    const call = api('/health').catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    const error = await call;
    vi.useRealTimers();
    expect(error).toBeInstanceOf(ApiError);
    expect(fetch).toHaveBeenCalledTimes(6);
  });

  it('does not retry other failures, and reports the error code', async () => {
    const fetch = vi.fn(async () => json(409, { error: 'ERR_DUPLICATE_EMAIL', message: 'taken' }));
    vi.stubGlobal('fetch', fetch);
    const error = (await api('/users/register', { method: 'POST', body: {} }).catch((caught: unknown) => caught)) as ApiError;
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(error.status).toBe(409);
    expect(error.code).toBe('ERR_DUPLICATE_EMAIL');
  });

  it('recovers when the network comes back within the retries', async () => {
    vi.useFakeTimers();
    let attempt = 0;
    vi.stubGlobal('fetch', vi.fn(async () => (++attempt < 3 ? Promise.reject(new TypeError('offline')) : json(200, { ok: true }))));
    const call = api<{ ok: boolean }>('/health');
    await vi.runAllTimersAsync();
    expect(await call).toEqual({ ok: true });
    vi.useRealTimers();
  });

  it('tells listeners about 401 and 403 answers unless the call expects them', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => json(403, { error: 'ERR_FORBIDDEN', message: 'no' })));
    const seen: number[] = [];
    const stop = onAuthFailure((status) => seen.push(status));
    await api('/users').catch(() => undefined);
    await api('/session', { quietAuthFailure: true }).catch(() => undefined);
    stop();
    expect(seen).toEqual([403]);
  });
});
