import { invalid, type LicenseStatus } from './status.js';

/** What the person needs to approve a desktop sign-in (RFC 8628 section 3.2), for `signIn`'s `onCode`. */
export interface DeviceCode {
  /** The code to enter, e.g. `BCDF-GHJK`. */
  userCode: string;
  /** The portal's page where the person enters the code, e.g. `https://licenses.example.com/device`. */
  verificationUri: string;
  /** The same page with the code filled in: open it in the browser (or show it as a QR code). */
  verificationUriComplete: string;
  /** Seconds until the code expires. */
  expiresIn: number;
  /** Seconds between polls, as the server asks. */
  interval: number;
}

export interface SignInOptions {
  /** Called once the code is there: show it and the address to the person (or open the browser). */
  onCode: (code: DeviceCode) => void | Promise<void>;
  /** Aborts the polling (the person cancelled): `signIn` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** How to wait between polls; default `setTimeout` (for tests). */
  sleep?: (ms: number) => Promise<void>;
}

/** RFC 8628 section 3.5: how much longer to wait after each `slow_down`. */
const SLOW_DOWN_MS = 5000;

/**
 * The device flow of a desktop sign-in (RFC 8628) up to the token: asks the server for a code for
 * `license` (product, machine, version), hands it to `onCode`, and polls as the server asks until
 * the person approves (the token), denies (SIGNIN_DENIED), or nobody does in time (SIGNIN_EXPIRED);
 * UNREACHABLE when the server cannot be reached at first. `post` sends one JSON POST.
 */
export async function deviceSignIn(
  post: (pathname: string, body: Record<string, unknown>) => Promise<Response>,
  license: { product: string; machineId: string; version?: string },
  options: SignInOptions,
): Promise<{ token: string } | LicenseStatus> {
  // The default wait ends early when the signal aborts.
  const sleep =
    options.sleep ??
    ((ms: number) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        options.signal?.addEventListener('abort', done, { once: true });
      }));
  let response: Response;
  try {
    response = await post('/api/client/v1/device/authorize', license);
  } catch (error) {
    return invalid('UNREACHABLE', `the license server cannot be reached (${(error as Error).message})`, true);
  }
  const started = (await response.json().catch(() => ({}))) as Partial<{ device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number; message: string }>;
  if (!response.ok || !started.device_code || !started.user_code || !started.verification_uri) {
    throw new Error(`the license server refused the sign-in (${response.status}${started.message ? `: ${started.message}` : ''})`);
  }
  const expiresIn = started.expires_in ?? 900;
  let interval = Math.max(started.interval ?? 5, 1) * 1000;
  await options.onCode({
    userCode: started.user_code,
    verificationUri: started.verification_uri,
    verificationUriComplete: started.verification_uri_complete ?? started.verification_uri,
    expiresIn,
    interval: interval / 1000,
  });
  const deadline = Date.now() + expiresIn * 1000;
  for (;;) {
    options.signal?.throwIfAborted();
    await sleep(interval);
    options.signal?.throwIfAborted();
    if (Date.now() > deadline) return invalid('SIGNIN_EXPIRED', 'nobody approved the sign-in in time; sign in again');
    let poll: Response;
    try {
      poll = await post('/api/client/v1/device/token', { device_code: started.device_code });
    } catch {
      continue; // a network hiccup: poll again until the code expires
    }
    const body = (await poll.json().catch(() => ({}))) as { access_token?: string; error?: string; error_description?: string };
    if (poll.ok && body.access_token) return { token: body.access_token };
    if (body.error === 'authorization_pending') continue;
    if (body.error === 'slow_down' || poll.status === 429) interval += SLOW_DOWN_MS;
    else if (body.error === 'access_denied') return invalid('SIGNIN_DENIED', body.error_description ?? 'the sign-in was denied');
    else if (body.error === 'expired_token' || body.error === 'invalid_grant') return invalid('SIGNIN_EXPIRED', body.error_description ?? 'the sign-in expired; sign in again');
    // anything else (a 5xx): poll again until the code expires
  }
}
