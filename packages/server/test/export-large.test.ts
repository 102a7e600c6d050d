import v8 from 'node:v8';
import vm from 'node:vm';
import { expect, it } from 'vitest';
import { describeBothDatabases, loggedIn } from './harness.ts';
import { privateDataDir } from './accounts-helpers.ts';

const ACCOUNTS = 200_000;

/** A full garbage collection, so that the heap measured is what is held, not what awaits collection. */
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;
/** What the process holds after a full collection: JS heap plus buffers outside it (socket queues). */
const retainedHeap = () => {
  collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
};

/**
 * The e-mail-consent export of 200,000 accounts streams: the server's memory stays flat while the
 * whole file goes out (DESIGN.md section 9), as a file and as its JSON form. Measured on a real
 * socket, reading as a browser would.
 */
describeBothDatabases(
  'e-mail consent export of 200,000 accounts',
  (t) => {
    it(
      'streams every row, as the file and as JSON, while the heap grows by far less than the file',
      async () => {
        const app = await t.newApp();
        const now = new Date().toISOString();
        for (let start = 0; start < ACCOUNTS; start += 1000) {
          const values = Array.from({ length: 1000 }, (_, i) => ({
            email: `bulk-${start + i}@example.com`,
            first_name: `First${start + i}`,
            last_name: 'Lastname, with comma',
            company: 'Some Company GmbH & Co. KG',
            country: 'DE',
            access_role: 'USER' as const,
            opt_in_email: true,
            confirmed: true,
            locale: 'de',
            created_at: now,
            updated_at: now,
          }));
          await app.ctx.db.insertInto('users').values(values).execute();
        }
        const admin = await loggedIn(app, 'ADMIN');
        await app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = app.server.address() as { port: number };

        // The file as a browser reads it, then its TextFile JSON form (downloads.ts), which streams as well.
        for (const accept of ['*/*', 'application/json']) {
          const baseline = retainedHeap();
          let peak = baseline;
          let chunks = 0;
          const response = await fetch(`http://127.0.0.1:${port}/api/users/export/email-consent`, { headers: { cookie: admin.cookie, accept } });
          expect(response.status).toBe(200);
          const asJson = accept === 'application/json';
          expect(response.headers.get('content-type')).toBe(asJson ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8');
          const reader = response.body!.getReader();
          let bytes = 0;
          let lines = 0;
          let previous = 0;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            bytes += value.length;
            // A line ends in LF in the file, in the escape `\n` in its JSON form (no field here has a backslash).
            for (const byte of value) {
              if (asJson ? previous === 0x5c && byte === 0x6e : byte === 0x0a) lines++;
              previous = byte;
            }
            if (++chunks % 50 === 0) peak = Math.max(peak, retainedHeap());
          }
          const growthMb = (peak - baseline) / 1024 / 1024;
          const fileMb = bytes / 1024 / 1024;
          console.info(`[export] ${asJson ? 'JSON form' : 'file'}: ${lines - 1} rows in ${chunks} chunks, ${fileMb.toFixed(1)} MB, peak retained memory growth ${growthMb.toFixed(1)} MB (${t.kind})`);
          expect(lines).toBe(ACCOUNTS + 1);
          // Flat: a few batches in flight (on both ends of the socket, since the reader is in this
          // process too). Building the file first and then sending it measures above its size (22 MB).
          expect(fileMb).toBeGreaterThan(20);
          expect(growthMb).toBeLessThan(10);
        }
      },
      // No budget of its own: the project's hang guard (vitest.config.ts) applies; it streams the export twice.
    );
  },
  { env: { DATA_DIR: privateDataDir() } },
);
