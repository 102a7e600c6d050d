/** PostgreSQL codes of a server that is going away or not there yet (class 08: connection exceptions). */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|database is locked|database system is (starting up|shutting down)/i;

/**
 * Whether an error says the database cannot be reached now, rather than that the request or the
 * code is wrong: PostgreSQL down, restarting or out of connections, or SQLite locked by another
 * process for longer than its busy timeout. Such a request is answered 503 and may be tried again.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) || (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message));
}

