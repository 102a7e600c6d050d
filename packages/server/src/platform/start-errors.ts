import type { Config } from './config.ts';

/** Why the server did not start, as one line an operator can act on (no stack trace for the known causes). */
export function describeStartError(error: unknown, config?: Config): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const where = config ? `port ${config.port} on ${config.host}` : 'the port';
  if (code === 'EADDRINUSE') return `Cannot start: ${where} is already in use; stop the program that uses it or set PORT to another port.`;
  if (code === 'EACCES' && /listen/.test(message)) return `Cannot start: no permission to listen on ${where}; use a port above 1023 behind a reverse proxy.`;
  if (code === 'EADDRNOTAVAIL') return `Cannot start: HOST ${config?.host ?? ''} is not an address of this machine.`;
  if (config?.database.kind === 'postgres' && (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === '28P01' || code === '3D000')) {
    return `Cannot start: the PostgreSQL database of DATABASE_URL cannot be used (${message}).`;
  }
  if (config?.database.kind === 'sqlite' && /database is locked/.test(message)) {
    return `Cannot start: the database ${config.database.file} is locked by another program (a restore under way?).`;
  }
  return `Cannot start: ${message}`;
}
