/**
 * A TCP proxy in front of the test's PostgreSQL server, so that a test can take "the database" away
 * and bring it back without touching the shared server: `cut()` drops every connection and refuses
 * new ones (as a stopped server does), `stall()` drops every connection and takes new ones without
 * ever answering (a server that does not accept them in time, or a network that swallows them),
 * `restore()` passes connections on again, on the same port.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  stall(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  let server: net.Server | null = null;
  let port = 0;
  const listen = (answering = true) =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        track(client);
        if (!answering) return;
        const upstream = net.connect(target);
        track(upstream);
        // One side gone, the other goes too: as a real server's connection would.
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = null;
  };
  await listen();
  return {
    get port() {
      return port;
    },
    cut: stop,
    async stall() {
      await stop();
      await listen(false);
    },
    async restore() {
      await stop();
      await listen();
    },
    close: stop,
  };
}
