/** At most this many reports per page load: a render loop must not flood the server's log. */
const MAX_REPORTS = 5;
let sent = 0;

export interface ClientErrorReport {
  message: string;
  stack?: string;
  url: string;
  userAgent: string;
}

/** The body sent to /api/client-errors, cut to the lengths the server accepts. */
export function clientErrorReport(error: unknown, extra?: string): ClientErrorReport {
  const message = error instanceof Error ? error.message : String(error);
  const stack = [error instanceof Error ? error.stack : undefined, extra].filter(Boolean).join('\n');
  return {
    message: message.slice(0, 2000) || 'unknown error',
    ...(stack ? { stack: stack.slice(0, 20000) } : {}),
    url: location.href.slice(0, 2000),
    userAgent: navigator.userAgent.slice(0, 500),
  };
}

/** Sends one error to the server's log (the spec's error-reporting proxy path). */
export function reportClientError(error: unknown, extra?: string): void {
  if (sent++ >= MAX_REPORTS) return;
  void fetch('/api/client-errors', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(clientErrorReport(error, extra)),
  }).catch(() => undefined);
}

/** Sends uncaught errors to the server's log, a few per page at most. */
export function reportClientErrors(): void {
  window.addEventListener('error', (event) => reportClientError(event.error instanceof Error ? event.error : event.message));
  window.addEventListener('unhandledrejection', (event) => reportClientError(event.reason));
}
