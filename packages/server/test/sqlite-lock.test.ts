/**
 * Another process holding SQLite's write lock (a second server, the CLI, a `sqlite3` shell left in a
 * transaction) stops no one but the writers: reads, /api/health and the API description answer
 * meanwhile, a waiting write finishes once the lock is free, and one that waits too long is answered
 * 503 ERR_DATABASE_BUSY with Retry-After. The lock is held by a child process, as in production.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/platform/db/database.ts';
import { buildTestApp, createTestApp, expectError, freshDatabase, loggedIn, testConfig } from './harness.ts';
import { holdWriteLock } from './processes.ts';

describe('SQLite locked by another process', () => {
  it('answers reads and health while a write waits for the lock, and finishes the write once the lock is free', async () => {
    const fresh = await createTestApp('sqlite');
    try {
      const { app } = fresh;
      if (fresh.config.database.kind !== 'sqlite') throw new Error('a SQLite app without a SQLite file');
      const { cookie } = await loggedIn(app, 'ADMIN');
      expect((await app.inject({ method: 'POST', url: '/api/features', headers: { cookie }, payload: { name: 'before-lock' } })).statusCode).toBe(201);

      const lock = await holdWriteLock(fresh.config.database.file);
      let settled = false;
      const write = app.inject({ method: 'POST', url: '/api/features', headers: { cookie }, payload: { name: 'while-locked' } }).finally(() => (settled = true));
      try {
        // The write has found the lock taken and waits for it (and only then are the reads sent).
        while (!settled && !(app.ctx.poolUsage().lockWaiting > 0)) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(settled).toBe(false);
        // Served while the write waits: health, a page of the API description, reads of the data.
        const health = await app.inject({ url: '/api/health' });
        expect(health.statusCode, health.body).toBe(200);
        expect((await app.inject({ url: '/api/openapi.json' })).statusCode).toBe(200);
        const features = await app.inject({ url: '/api/features', headers: { cookie } });
        expect(features.statusCode, features.body).toBe(200);
        expect(features.json().items.map((feature: { name: string }) => feature.name)).toContain('before-lock');
        expect((await app.inject({ url: '/api/session', headers: { cookie } })).statusCode).toBe(200);
        // The lock is still held: the write cannot have been answered yet.
        expect(settled).toBe(false);
      } finally {
        await lock.release();
      }
      const written = await write;
      expect(written.statusCode, written.body).toBe(201);
      const after = await app.inject({ url: '/api/features', headers: { cookie } });
      expect(after.json().items.map((feature: { name: string }) => feature.name)).toContain('while-locked');
    } finally {
      await fresh.close();
    }
  });

  it('answers a write that waited past the limit 503 ERR_DATABASE_BUSY with Retry-After, and writes again once the lock is free', async () => {
    const fresh = await freshDatabase('sqlite');
    if (fresh.config.kind !== 'sqlite') throw new Error('a SQLite database without a file');
    // The app's own connection, with a short limit (the default waits 15 s).
    const database = openDatabase(fresh.config, { lockWaitLimitMs: 300 });
    const app = await buildTestApp(testConfig(fresh.config), database);
    try {
      const { cookie } = await loggedIn(app, 'ADMIN');
      const lock = await holdWriteLock(fresh.config.file);
      try {
        const refused = await app.inject({ method: 'POST', url: '/api/features', headers: { cookie }, payload: { name: 'too-long-locked' } });
        expectError(refused, 503, 'ERR_DATABASE_BUSY');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
      } finally {
        await lock.release();
      }
      expect((await app.inject({ method: 'POST', url: '/api/features', headers: { cookie }, payload: { name: 'after-lock' } })).statusCode).toBe(201);
      expect(await app.ctx.db.selectFrom('features').select('name').where('name', '=', 'too-long-locked').execute()).toEqual([]);
    } finally {
      await app.close();
      await database.close();
      await fresh.dispose();
    }
  });
});
