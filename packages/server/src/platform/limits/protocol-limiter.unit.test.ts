import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { AppError } from '../http/errors.ts';
import { ProtocolLimiter } from './protocol-limiter.ts';

const refusal = (work: () => void) => {
  try {
    work();
  } catch (error) {
    return error instanceof AppError ? `${error.status} ${error.code}` : String(error);
  }
  return 'allowed';
};

describe('ProtocolLimiter', () => {
  it('caps an address, except the networks allowed, and counts each machine on its own', () => {
    const limiter = new ProtocolLimiter({ perMachine: 2, perAddress: 3, allow: ['192.0.2.0/24', '2001:db8::/32'] });
    for (const machine of ['a', 'b', 'c']) expect(refusal(() => limiter.take('198.51.100.7', machine))).toBe('allowed');
    expect(refusal(() => limiter.take('198.51.100.7', 'd'))).toBe('429 ERR_RATE_LIMITED');
    // An IPv6 client counts by its /64; an IPv4 address written as IPv6 is that address.
    expect(refusal(() => limiter.take('::ffff:198.51.100.7'))).toBe('429 ERR_RATE_LIMITED');
    for (let i = 0; i < 10; i++) expect(refusal(() => limiter.take('192.0.2.9'))).toBe('allowed');
    expect(refusal(() => limiter.take('::ffff:192.0.2.9'))).toBe('allowed');
    expect(refusal(() => limiter.take('2001:db8::1'))).toBe('allowed');
    // Allowed networks keep the per-machine limit.
    expect(refusal(() => limiter.take('192.0.2.9', 'x'))).toBe('allowed');
    expect(refusal(() => limiter.take('192.0.2.10', 'x'))).toBe('allowed');
    expect(refusal(() => limiter.take('192.0.2.11', 'x'))).toBe('429 ERR_RATE_LIMITED');
  });

  it('reads its settings from the environment, with defaults of 60 a machine and 6000 an address', () => {
    expect(loadConfig({}).protocolRateLimit).toEqual({ perMachine: 60, perAddress: 6000, allow: [] });
    expect(loadConfig({ PROTOCOL_RATE_LIMIT: '120', PROTOCOL_RATE_LIMIT_PER_ADDRESS: '20000', PROTOCOL_RATE_LIMIT_ALLOW: '10.0.0.0/8, fd00::/8,192.0.2.1' }).protocolRateLimit).toEqual({
      perMachine: 120,
      perAddress: 20000,
      allow: ['10.0.0.0/8', 'fd00::/8', '192.0.2.1'],
    });
    expect(() => loadConfig({ PROTOCOL_RATE_LIMIT: '0' })).toThrow(/PROTOCOL_RATE_LIMIT: must be a whole number of calls a minute/);
    expect(() => loadConfig({ PROTOCOL_RATE_LIMIT_ALLOW: '10.0.0.0/33,office' })).toThrow(/PROTOCOL_RATE_LIMIT_ALLOW: must be addresses or CIDR ranges .*not one: 10.0.0.0\/33, office/);
  });
});
