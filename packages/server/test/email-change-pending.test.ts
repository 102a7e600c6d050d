import { expect, it } from 'vitest';
import { client, describeBothDatabases, expectError, loggedIn, uniqueEmail } from './harness.ts';

describeBothDatabases('GET /api/users/change-email: the change waiting for its link', (t) => {
  it('answers the own pending change, none before it, and nobody else’s', async () => {
    const user = await loggedIn(t.app);
    const other = await loggedIn(t.app);
    expect((await client(t.app, user.cookie).get('/api/users/change-email')).json()).toEqual({ pending: null });

    const newEmail = uniqueEmail('moved');
    expect((await client(t.app, user.cookie).post('/api/users/change-email', { body: { email: newEmail } })).statusCode).toBe(200);
    const pending = (await client(t.app, user.cookie).get('/api/users/change-email')).json() as { pending: { email: string; expiresAt: string } };
    expect(pending.pending.email).toBe(newEmail);
    expect(Date.parse(pending.pending.expiresAt) - Date.now()).toBeGreaterThan(47 * 3600_000);

    expect((await client(t.app, other.cookie).get('/api/users/change-email')).json()).toEqual({ pending: null });
    expectError(await client(t.app).get('/api/users/change-email'), 401, 'ERR_UNAUTHENTICATED');
  });
});
