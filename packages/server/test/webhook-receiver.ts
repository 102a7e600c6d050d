/** A receiving HTTP server on loopback for the webhook tests: it keeps what it gets and answers as told. */
import http from 'node:http';
import type net from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
  /** The verified payload: the standardwebhooks package checked its signature. */
  payload: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Deliveries whose signature did not verify (answered 400). */
  rejected: string[];
  /** The status to answer with (200 unless told). */
  status: number;
  /** The secret deliveries are verified with; set it from the endpoint's creation. */
  secret: string | null;
  /** Stops listening: connections are refused (the receiver is down). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let server: http.Server;
  let port = 0;
  const receiver: Receiver = {
    url: '',
    received: [],
    rejected: [],
    status: 200,
    secret: null,
    down: () => stop(),
    up: () => listen(),
    close: () => stop(),
  };
  const handle: http.RequestListener = (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(request.headers).map(([key, value]) => [key, String(value)]));
      if (receiver.status >= 200 && receiver.status < 300) {
        try {
          // Throws on a wrong or missing signature, as a real receiver refuses it.
          const payload = new Webhook(receiver.secret ?? 'whsec_').verify(body, headers) as ReceivedDelivery['payload'];
          receiver.received.push({ headers, body, payload });
        } catch (error) {
          receiver.rejected.push(`${(error as Error).message}: ${body}`);
          response.writeHead(400).end('bad signature');
          return;
        }
      }
      response.writeHead(receiver.status, { 'content-type': 'text/plain' }).end(receiver.status < 300 ? 'thanks' : 'receiver unavailable');
    });
  };
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = http.createServer(handle);
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as net.AddressInfo).port;
        receiver.url = `http://127.0.0.1:${port}/hooks`;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen();
  return receiver;
}
