import { SESSION_COOKIE } from '@lm/contract';
import type { App } from '../../app.ts';
import { hashToken, randomToken } from '../../platform/auth/secrets.ts';
import { deleteLoginDevicesOfUser, deleteSession, deleteSessionsOfUser, insertSession } from '../session-store/repo.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A refusal the demo did not expect: a setting of the installation stands in the way, or the demo has a bug. */
export class DemoStepFailed extends Error {}

/**
 * The demo's HTTP client: the app's own routes through `inject`, as the administrator (a session made
 * for the first administrator, whose password the demo does not know), the distributor and the
 * customers (logged in with their password, as people do: it records their last login).
 */
export class DemoApi {
  private readonly app: App;
  private readonly password: string;
  /** The demo's own accounts, whose sessions all end with the demo. */
  private readonly accountsLoggedIn = new Set<number>();
  /** The administrator's sessions the demo made; any of the administrator's own stay. */
  private readonly administratorSessions: string[] = [];

  constructor(app: App, password: string) {
    this.app = app;
    this.password = password;
  }

  async call<T>(session: string | null, method: Method, url: string, payload?: object): Promise<T> {
    const response = await this.app.inject({ method, url, payload, cookies: session ? { [SESSION_COOKIE]: session } : {} });
    if (response.statusCode >= 400) throw new DemoStepFailed(`${method} ${url} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
    return (response.body ? response.json() : undefined) as T;
  }

  /** Logs an account in with the demo password; the session of this visit. */
  async login(email: string): Promise<string> {
    const response = await this.app.inject({ method: 'POST', url: '/api/session', payload: { username: email, password: this.password } });
    const session = response.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value;
    if (response.statusCode !== 200 || !session) throw new DemoStepFailed(`logging in as ${email} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
    this.accountsLoggedIn.add((response.json() as { id: number }).id);
    return session;
  }

  /** A session of the administrator for one visit, made directly: nobody logs in. */
  async administratorSession(userId: number): Promise<string> {
    const token = randomToken();
    await insertSession(this.app.ctx.db, { tokenHash: hashToken(token), userId, expiresAt: new Date(Date.now() + 3_600_000), userAgent: 'seed:demo', address: null });
    this.administratorSessions.push(hashToken(token));
    return token;
  }

  /** Ends the sessions the demo made and forgets the browsers it logged in from: nothing it made stays signed in. */
  async endSessions(): Promise<void> {
    const { db } = this.app.ctx;
    for (const tokenHash of this.administratorSessions) await deleteSession(db, tokenHash);
    for (const userId of this.accountsLoggedIn) {
      await deleteSessionsOfUser(db, userId);
      await deleteLoginDevicesOfUser(db, userId);
    }
  }
}
