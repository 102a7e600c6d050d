/** Sends uncaught errors to the server's log (the spec's error-reporting proxy path), a few per page at most. */
export function reportClientErrors(): void {
  let sent = 0;
  const report = (message: string, stack?: string) => {
    if (sent++ >= 5) return;
    void fetch('/api/client-errors', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: message.slice(0, 2000), stack: stack?.slice(0, 20000), url: location.href, userAgent: navigator.userAgent.slice(0, 500) }),
    }).catch(() => undefined);
  };
  window.addEventListener('error', (event) => report(event.message, event.error instanceof Error ? event.error.stack : undefined));
  window.addEventListener('unhandledrejection', (event) => {
    const reason: unknown = event.reason;
    report(reason instanceof Error ? reason.message : String(reason), reason instanceof Error ? reason.stack : undefined);
  });
}
