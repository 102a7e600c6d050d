import { expect, it } from 'vitest';
import { describeBothDatabases } from './harness.ts';

describeBothDatabases('health', (t) => {
  it('answers ok with the database kind', async () => {
    const response = await t.app.inject({ url: '/api/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', database: t.kind });
  });

  it('is JSON', async () => {
    const response = await t.app.inject({ url: '/api/health' });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });
});
