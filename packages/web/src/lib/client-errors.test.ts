import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientErrorReport, reportClientError } from './client-errors.ts';

describe('client error reports', () => {
  afterEach(() => vi.unstubAllGlobals());

  function stubBrowser() {
    vi.stubGlobal('location', { href: 'http://localhost/products' });
    vi.stubGlobal('navigator', { userAgent: 'Chromium' });
  }

  it('carries the message, the stack with the component stack, the page and the browser', () => {
    stubBrowser();
    const error = new Error('boom');
    const report = clientErrorReport(error, '\n    at ProductListPage');
    expect(report).toMatchObject({ message: 'boom', url: 'http://localhost/products', userAgent: 'Chromium' });
    expect(report.stack).toContain('Error: boom');
    expect(report.stack).toContain('at ProductListPage');
  });

  it('cuts every part to what the server accepts and names a thrown non-error', () => {
    stubBrowser();
    const report = clientErrorReport('x'.repeat(5000));
    expect(report.message).toHaveLength(2000);
    expect(report.stack).toBeUndefined();
    expect(clientErrorReport('').message).toBe('unknown error');
  });

  it('posts to /api/client-errors, at most five times per page', () => {
    stubBrowser();
    const fetch = vi.fn(() => Promise.resolve(new Response(null, { status: 204 })));
    vi.stubGlobal('fetch', fetch);
    for (let i = 0; i < 8; i++) reportClientError(new Error(`error ${i}`));
    expect(fetch).toHaveBeenCalledTimes(5);
    expect(fetch.mock.calls[0]).toMatchObject(['/api/client-errors', { method: 'POST' }]);
  });
});
