import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { limitedClient } from './client-address.ts';
import { rateLimited } from './limiter.ts';

/** The desktop protocol's limits (PROTOCOL_RATE_LIMIT*, README "Configuration"): calls a minute. */
export interface ProtocolRateLimit {
  /** Per machine (its fingerprint, the request's machineId): a machine's retries, not its neighbours'. */
  perMachine: number;
  /** Per address (an IPv6 client by its /64): a coarse cap far above a site's machines behind one NAT. */
  perAddress: number;
  /** Networks (addresses and CIDR ranges) without the per-address cap, e.g. a large site's NAT. */
  allow: string[];
}

export const DEFAULT_PROTOCOL_RATE_LIMIT: ProtocolRateLimit = { perMachine: 60, perAddress: 6000, allow: [] };

const WINDOW_MS = 60_000;

/** An address or CIDR range of PROTOCOL_RATE_LIMIT_ALLOW, or null when it is none. */
export function parseNetwork(entry: string): { address: string; prefix: number; type: 'ipv4' | 'ipv6' } | null {
  const [address, prefix, ...rest] = entry.trim().split('/');
  const type = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
  if (!type || rest.length) return null;
  const longest = type === 'ipv4' ? 32 : 128;
  if (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= longest)) return null;
  return { address, prefix: prefix === undefined ? longest : Number(prefix), type };
}

/**
 * Counts in memory, per instance, in fixed one-minute windows: two map lookups a call and no write to
 * the database on the hot path; the maps are dropped whole when a window ends, so they hold at most
 * one minute's callers.
 */
export class ProtocolLimiter {
  private readonly limits: ProtocolRateLimit;
  private readonly allowed = new BlockList();
  private readonly anyAllowed: boolean;
  private windowEnds = 0;
  private machines = new Map<string, number>();
  private addresses = new Map<string, number>();

  constructor(limits: ProtocolRateLimit) {
    this.limits = limits;
    for (const entry of limits.allow) {
      const network = parseNetwork(entry);
      if (network) this.allowed.addSubnet(network.address, network.prefix, network.type);
    }
    this.anyAllowed = limits.allow.length > 0;
  }

  /** Throws 429 ERR_RATE_LIMITED (with the seconds to wait) when the address or the machine has used up its minute. */
  take(ip: string | undefined, machineId?: string): void {
    const now = Date.now();
    if (now >= this.windowEnds) {
      this.windowEnds = now + WINDOW_MS;
      this.machines = new Map();
      this.addresses = new Map();
    }
    if (!this.isAllowed(ip)) {
      // An IPv4 address (no colon) is its own key: limitedClient's parsing costs more than the count.
      const address = ip !== undefined && !ip.includes(':') ? ip : limitedClient(ip);
      const calls = (this.addresses.get(address) ?? 0) + 1;
      this.addresses.set(address, calls);
      if (calls > this.limits.perAddress) throw rateLimited('Too many requests from this address, please try again later', this.retryAfter(now));
    }
    if (machineId !== undefined) {
      const calls = (this.machines.get(machineId) ?? 0) + 1;
      this.machines.set(machineId, calls);
      if (calls > this.limits.perMachine) throw rateLimited('Too many requests from this machine, please try again later', this.retryAfter(now));
    }
  }

  private retryAfter(now: number): number {
    return Math.max(1, Math.ceil((this.windowEnds - now) / 1000));
  }

  private isAllowed(ip: string | undefined): boolean {
    if (!this.anyAllowed || !ip) return false;
    const plain = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
    return this.allowed.check(plain, isIPv4(plain) ? 'ipv4' : 'ipv6');
  }
}
