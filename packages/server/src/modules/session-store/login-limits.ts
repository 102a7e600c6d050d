import { FIFTEEN_MINUTES } from '../../platform/limits/limiter.ts';

/**
 * Failed logins (OWASP's device cookies): a browser that has logged in to the account before
 * carries a device cookie and has ten tries of its own; every other client shares the account's ten
 * and its address's thirty within 15 minutes. A stranger guessing an administrator's password thus
 * locks out only browsers the administrator never used, never the administrator's own.
 */
export const LOGIN_LIMITS = {
  account: { name: 'login-account', max: 10, windowMs: FIFTEEN_MINUTES },
  address: { name: 'login-address', max: 30, windowMs: FIFTEEN_MINUTES },
  device: { name: 'login-device', max: 10, windowMs: FIFTEEN_MINUTES },
};
