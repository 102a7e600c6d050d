import { beforeEach, describe, expect, it, vi } from 'vitest';
import { forgetKeptChange, keepable, keepChange, keptChange, KEPT_FOR_MS } from './kept-change.ts';

const store = new Map<string, string>();
vi.stubGlobal('window', {
  sessionStorage: { getItem: (key: string) => store.get(key) ?? null, setItem: (key: string, value: string) => void store.set(key, value), removeItem: (key: string) => void store.delete(key) },
});

describe('a change kept across the sign-in', () => {
  beforeEach(() => store.clear());

  it('keeps a write with the page it was made on, and forgets it when asked', () => {
    expect(keepChange('/tans/12', { method: 'PUT', body: { notes: 'Called the customer' }, ifMatch: '"3"' }, '/tans?page=2', 7, 1000)).toBe(true);
    expect(keptChange(1000)).toMatchObject({ method: 'PUT', path: '/tans/12', body: { notes: 'Called the customer' }, ifMatch: '"3"', page: '/tans?page=2', userId: 7 });
    forgetKeptChange();
    expect(keptChange(1000)).toBeNull();
  });

  it('offers it for an hour, not longer', () => {
    keepChange('/products/1', { method: 'PUT', body: { name: 'X' } }, '/products', 7, 0);
    expect(keptChange(KEPT_FOR_MS)).not.toBeNull();
    expect(keptChange(KEPT_FOR_MS + 1)).toBeNull();
  });

  it('never keeps reads, sign-ins, passwords, tokens, codes, secrets or uploads', () => {
    expect(keepable('/tans', { method: 'GET' })).toBe(false);
    expect(keepable('/session', { method: 'POST', body: { username: 'a', password: 'b' } })).toBe(false);
    expect(keepable('/account/password', { method: 'PUT', body: { current: 'a', next: 'b' } })).toBe(false);
    expect(keepable('/api-tokens', { method: 'POST', body: { name: 'CI' } })).toBe(false);
    expect(keepable('/webhooks/2', { method: 'PUT', body: { url: 'https://x.example', secret: 's' } })).toBe(false);
    expect(keepable('/settings', { method: 'PUT', body: { values: { 'mail.smtpPassword': 'p' } } })).toBe(false);
    expect(keepable('/account/two-factor', { method: 'POST', body: { code: '123456' } })).toBe(false);
    expect(keepable('/tans/1', { method: 'PUT', body: { notes: 'x' }, quietAuthFailure: true })).toBe(false);
    expect(keepable('/releases/1', { method: 'PUT', body: new FormData() })).toBe(false);
    expect(keepChange('/session', { method: 'POST', body: { username: 'a', password: 'b' } }, '/login', 1)).toBe(false);
    expect(store.size).toBe(0);
  });

  it('keeps ordinary edits', () => {
    expect(keepable('/tans/1', { method: 'PUT', body: { notes: 'x', validUntil: '2027-01-01' } })).toBe(true);
    expect(keepable('/users/3', { method: 'PUT', body: { phone: '+41', optInEmail: false } })).toBe(true);
    expect(keepable('/licenses/4', { method: 'DELETE' })).toBe(true);
  });
});
