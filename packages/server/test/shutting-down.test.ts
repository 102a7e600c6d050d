/**
 * While the app closes (SIGTERM in main.ts closes it so), the requests in flight finish and a request
 * that arrives meanwhile on a connection still open gets the product's own answer: 503
 * ERR_SHUTTING_DOWN with Retry-After, its connection closed.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { createTestApp, DATABASE_KINDS, loggedIn, postgresReachable } from './harness.ts';

const IN_CI = /^(true|1)$/i.test(process.env.CI ?? '');

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The first HTTP answer on a socket (Content-Length framed, as every answer of this app is). */
function firstAnswer(socket: net.Socket): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let data = '';
    const parse = () => {
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return;
      const [statusLine, ...headerLines] = data.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length'] ?? 0);
      if (data.length - end - 4 < length) return;
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: data.slice(end + 4, end + 4 + length) });
    };
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString();
      parse();
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed before an answer: ${JSON.stringify(data)}`)));
  });
}

const connect = (app: App) =>
  new Promise<net.Socket>((resolve) => {
    const { port } = app.server.address() as net.AddressInfo;
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
  });

for (const kind of DATABASE_KINDS) {
  describe.skipIf(kind === 'postgres' && !postgresReachable && !IN_CI)(`shutting down [${kind}]`, () => {
    it('finishes the request in flight and answers one arriving meanwhile 503 ERR_SHUTTING_DOWN with Retry-After and Connection: close', async () => {
      const testApp = await createTestApp(kind);
      const { app } = testApp;
      let closed: Promise<void> | undefined;
      const sockets: net.Socket[] = [];
      try {
        const { cookie } = await loggedIn(app, 'ADMIN');
        await app.listen({ port: 0, host: '127.0.0.1' });
        const body = JSON.stringify({ name: `in-flight-${kind}` });
        const head = (contentLength: number) =>
          `POST /api/features HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n`;
        // In flight: its headers are in, its body is still arriving.
        const inFlight = await connect(app);
        sockets.push(inFlight);
        const inFlightAnswer = firstAnswer(inFlight);
        const routed = new Promise<void>((resolve) => app.server.once('request', () => resolve()));
        inFlight.write(`${head(Buffer.byteLength(body))}\r\n${body.slice(0, 5)}`);
        // Arriving: a connection in the middle of sending its headers (so not idle: it stays open).
        const arriving = await connect(app);
        sockets.push(arriving);
        const arrivingAnswer = firstAnswer(arriving);
        arriving.write(head(2));
        // The first request has been routed before the app starts closing.
        await routed;
        closed = app.close();
        arriving.write('\r\n{}');
        const refused = await arrivingAnswer;
        expect(refused.status).toBe(503);
        expect(JSON.parse(refused.body)).toMatchObject({ error: 'ERR_SHUTTING_DOWN' });
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        expect(refused.headers.connection).toBe('close');

        inFlight.write(body.slice(5));
        const finished = await inFlightAnswer;
        expect(finished.status, finished.body).toBe(201);
        expect(finished.headers.connection).toBe('close');
        await closed;
      } finally {
        // A failed expectation leaves a request waiting for its body: the app would wait for it.
        for (const socket of sockets) socket.destroy();
        if (!closed) await app.close();
        await testApp.close();
      }
    });
  });
}
