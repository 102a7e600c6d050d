import { describe, expect, it } from 'vitest';
import { limitedClient } from './client-address.ts';

describe('limitedClient', () => {
  it('counts an IPv4 address as it is', () => {
    expect(limitedClient('192.0.2.7')).toBe('192.0.2.7');
  });

  it('counts every IPv6 address of a /64 as one client, however it is written', () => {
    const key = limitedClient('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const same of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0DB8:0001:0002:0:0:0:9', '2001:db8:1:2:a:b:192.0.2.1', '2001:db8:1:2::5%eth0']) {
      expect(limitedClient(same), same).toBe(key);
    }
    expect(limitedClient('2001:db8:1:3::1')).not.toBe(key);
    expect(limitedClient('::1')).toBe('0:0:0:0::/64');
  });

  it('counts an IPv4 address written as IPv6 (a dual-stack socket) as the IPv4 address', () => {
    expect(limitedClient('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(limitedClient('::ffff:c000:0207')).toBe('192.0.2.7');
  });

  it('counts requests without an address (a socket already closed) together', () => {
    expect(limitedClient(undefined)).toBe('unknown');
  });
});
