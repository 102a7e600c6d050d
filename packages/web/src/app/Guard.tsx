import type { ReactNode } from 'react';
import { Navigate, useLocation, useParams } from 'react-router';
import { useAuth } from '../lib/auth.ts';
import { BusyOverlay } from '../components/BusyOverlay.tsx';
import type { Requirement } from './routes.tsx';

/** Where an account sets up its second factor (and sees its sessions). */
export const SECURITY_PAGE = '/account/security';

export function loginUrl(returnUrl: string): string {
  return `/login?returnUrl=${encodeURIComponent(returnUrl)}`;
}

/**
 * Spec guard rules: the session is validated first; without it the user goes to /login with a
 * returnUrl; with a missing ability, to /.
 */
export function Guard({ requires, children }: { requires?: Requirement; children: ReactNode }) {
  const auth = useAuth();
  const location = useLocation();
  const params = useParams();
  if (!requires) return children;
  if (!auth.initialized) return <BusyOverlay />;
  if (!auth.user) return <Navigate to={loginUrl(location.pathname + location.search)} replace />;
  // The settings require a second factor of this account: nothing else opens until it is set up.
  if (auth.user.twoFactorEnrollmentRequired && location.pathname !== SECURITY_PAGE) return <Navigate to={SECURITY_PAGE} replace />;
  if ('ability' in requires) {
    const [action, subject] = requires.ability(params);
    if (!auth.ability.can(action, subject)) return <Navigate to="/" replace />;
  }
  return children;
}
