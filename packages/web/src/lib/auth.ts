import { useSyncExternalStore } from 'react';
import { createAbility, unpackAbilityRules, type AppAbility, type LoginRequest, type PackedRules, type SessionState, type SessionUser } from '@lm/contract';
import { api, ApiError } from './api.ts';

/** Auth status of spec section 4. */
export type AuthStatus = 'Idle' | 'Pending' | 'Success' | 'Error';

export interface AuthState {
  status: AuthStatus;
  user: SessionUser | null;
  ability: AppAbility;
  /** The error code of the last failed login, from the response's `error` field. */
  errorCode: string | undefined;
  /** True once the session has been validated at start (whatever the outcome). */
  initialized: boolean;
}

const anonymous = createAbility([]);
let state: AuthState = { status: 'Idle', user: null, ability: anonymous, errorCode: undefined, initialized: false };
const listeners = new Set<() => void>();
/** Called after each login, logout and validation: the app reloads its settings then. */
const afterChange = new Set<() => void>();

function set(next: Partial<AuthState>) {
  state = { ...state, ...next };
  for (const listener of listeners) listener();
}

function signedIn(user: SessionUser) {
  set({ status: 'Success', user, ability: createAbility(unpackAbilityRules(user.rules as PackedRules)), errorCode: undefined, initialized: true });
}

function signedOut(status: AuthStatus = 'Idle', errorCode?: string, ability: AppAbility = anonymous) {
  set({ status, user: null, ability, errorCode, initialized: true });
}

const notify = () => afterChange.forEach((listener) => listener());

export const auth = {
  get: () => state,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
  onChange(listener: () => void): () => void {
    afterChange.add(listener);
    return () => void afterChange.delete(listener);
  },

  /** GET /session: validates the session cookie; a visitor without one gets the anonymous rules. */
  async validate(): Promise<void> {
    if (!state.initialized) set({ status: 'Pending' });
    try {
      const session = await api<SessionState>('/session', { quietAuthFailure: true });
      if (session.id === null) signedOut('Idle', undefined, createAbility(unpackAbilityRules(session.rules as PackedRules)));
      else signedIn(session);
    } catch {
      signedOut();
    }
    notify();
  },

  async login(credentials: LoginRequest): Promise<SessionUser> {
    set({ status: 'Pending', errorCode: undefined });
    try {
      const user = await api<SessionUser>('/session', { method: 'POST', body: credentials, quietAuthFailure: true });
      signedIn(user);
      return user;
    } catch (error) {
      signedOut('Error', error instanceof ApiError ? error.code : undefined);
      throw error;
    } finally {
      notify();
    }
  },

  async logout(): Promise<void> {
    try {
      await api('/session', { method: 'DELETE', quietAuthFailure: true });
    } finally {
      signedOut();
      notify();
    }
  },

  /** The server refused our session (401/403): forget it without a call. */
  lost(): void {
    if (state.user) signedOut();
  },
};

export function useAuth(): AuthState {
  return useSyncExternalStore(auth.subscribe, auth.get);
}

export function useAbility(): AppAbility {
  return useAuth().ability;
}
