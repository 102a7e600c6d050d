import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { isPublicAddress } from './address.ts';
import { newWebhookSecret, webhookHeaders } from './signature.ts';

describe('webhook signatures', () => {
  it('verify with the standardwebhooks package, with either secret during a rotation', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ id: 'msg_1', type: 'license.created', createdAt: '2026-01-01T00:00:00.000Z', data: { id: 1 } });
    const headers = webhookHeaders([current, previous], 'msg_1', body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(current).verify(body, headers)).toMatchObject({ type: 'license.created' });
    expect(new Webhook(previous).verify(body, headers)).toMatchObject({ id: 'msg_1' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});

describe('public addresses (for distributors’ endpoints)', () => {
  it('tells loopback, private, link-local and mapped addresses from public ones', () => {
    for (const inner of ['127.0.0.1', '10.0.0.5', '172.16.3.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not an ip']) {
      expect(isPublicAddress(inner), inner).toBe(false);
    }
    for (const outer of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '::ffff:808:808', '2a00:1450:4001:82a::200e']) {
      expect(isPublicAddress(outer), outer).toBe(true);
    }
  });

  it('refuses an inner IPv4 address however IPv6 writes it, and the documentation and relay networks', () => {
    const inner = [
      '::127.0.0.1', // IPv4-compatible
      '::ffff:7f00:1', // mapped, in hex
      '::ffff:0:127.0.0.1', // translated (SIIT)
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      '64:ff9b::a00:1', // NAT64 of 10.0.0.1
      '64:ff9b:1::a00:1', // local-use NAT64
      '2001:db8::1',
      '3fff::1',
      '100::1', // discard-only
      '192.0.2.2',
      '192.88.99.1',
      '198.51.100.7',
      '203.0.113.9',
      '255.255.255.255',
    ];
    for (const address of inner) expect(isPublicAddress(address), address).toBe(false);
  });

  it("refuses this machine's own addresses, where services listening on all interfaces answer", () => {
    const own = ['93.184.216.34', '2606:4700:4700:0:0:0:0:1111', '127.0.0.1'];
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '::ffff:93.184.216.34']) expect(isPublicAddress(address, own), address).toBe(false);
    expect(isPublicAddress('8.8.8.8', own)).toBe(true);
    const interfaces = Object.values(os.networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
    for (const address of interfaces) expect(isPublicAddress(address.replace(/%.*$/, '')), address).toBe(false);
  });
});

describe('docs/integration-api.md', () => {
  it('verifies a real delivery with the openssl commands it shows', () => {
    const doc = fs.readFileSync(path.join(import.meta.dirname, '../../../../../docs/integration-api.md'), 'utf8');
    const block = /### Verifying with `openssl`[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeTruthy();
    // The example's values are replaced by a real delivery's.
    const commands = block!
      .split('\n')
      .filter((line) => !/^(secret|id|timestamp|received)=/.test(line))
      .join('\n');
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'msg_doc', type: 'license.created', createdAt: new Date().toISOString(), data: { ownerName: 'Zoë Ünal' } });
    const headers = webhookHeaders([secret], 'msg_doc', body);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-webhook-doc-'));
    fs.writeFileSync(path.join(dir, 'body.json'), body);
    const run = (received: string) =>
      spawnSync('bash', ['-c', commands], { cwd: dir, encoding: 'utf8', env: { ...process.env, secret, id: 'msg_doc', timestamp: headers['webhook-timestamp'], received } }).stdout.trim();
    expect(run(headers['webhook-signature'])).toBe('signature OK');
    expect(run(webhookHeaders([newWebhookSecret()], 'msg_doc', body)['webhook-signature'])).toBe('signature WRONG');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
