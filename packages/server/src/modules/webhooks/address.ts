import dns from 'node:dns';
import net from 'node:net';
import os from 'node:os';

/**
 * IPv4 addresses that are not on the public internet: this network, private, carrier-grade NAT,
 * loopback, link-local (cloud metadata services live there), IETF protocol assignments, the three
 * documentation networks, the 6to4 relay, benchmarking, multicast, reserved and broadcast.
 */
const NON_PUBLIC_IPV4 = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC_IPV4.addSubnet(address, prefix, 'ipv4');
}

/**
 * IPv6 is judged the other way round: only global unicast (2000::/3) is public, less its special
 * blocks. Everything else (loopback, unique-local, link-local, multicast, IPv4-compatible,
 * translated, NAT64) would need a rule per way of writing an inner IPv4 address in IPv6; the blocks
 * inside 2000::/3 carry one too (6to4 and Teredo embed an IPv4 address, so they are refused whole).
 */
const GLOBAL_UNICAST_IPV6 = new net.BlockList();
GLOBAL_UNICAST_IPV6.addSubnet('2000::', 3, 'ipv6');
const SPECIAL_IPV6 = new net.BlockList();
for (const [address, prefix] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
] as const) {
  SPECIAL_IPV6.addSubnet(address, prefix, 'ipv6');
}

/** The eight 16-bit words of an IPv6 address (the URL parser writes it in one canonical form first). */
function ipv6Words(address: string): number[] {
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [head, tail] = canonical.includes('::') ? canonical.split('::') : [canonical, undefined];
  const first = head ? head.split(':') : [];
  const last = tail ? tail.split(':') : [];
  const words = tail === undefined ? first : [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return words.map((word) => Number.parseInt(word, 16));
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d, however written), or null. */
function mappedIpv4(address: string): string | null {
  const words = ipv6Words(address);
  if (words.slice(0, 5).some((word) => word !== 0) || words[5] !== 0xffff) return null;
  return [words[6] >> 8, words[6] & 0xff, words[7] >> 8, words[7] & 0xff].join('.');
}

/** One spelling per address, to compare addresses written differently. */
function addressKey(address: string): string {
  return net.isIP(address) === 6 ? ipv6Words(address.replace(/%.*$/, '')).map((word) => word.toString(16)).join(':') : address;
}

/** This machine's own addresses: a service listening on all interfaces answers there as on loopback. */
function ownAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
}

export function isPublicAddress(address: string, own: readonly string[] = ownAddresses()): boolean {
  const version = net.isIP(address);
  if (version === 0) return false;
  if (version === 6) {
    const ipv4 = mappedIpv4(address);
    if (ipv4) return isPublicAddress(ipv4, own);
    if (!GLOBAL_UNICAST_IPV6.check(address, 'ipv6') || SPECIAL_IPV6.check(address, 'ipv6')) return false;
  } else if (NON_PUBLIC_IPV4.check(address, 'ipv4')) {
    return false;
  }
  const key = addressKey(address);
  return !own.some((mine) => addressKey(mine) === key);
}

export class NonPublicAddressError extends Error {}

/** The host of a URL without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Resolves a host name (or takes an address as it is) and refuses it unless every address is public. */
export async function assertPublicHost(host: string): Promise<void> {
  const addresses = net.isIP(host) ? [host] : (await dns.promises.lookup(host, { all: true })).map((entry) => entry.address);
  const inner = addresses.find((address) => !isPublicAddress(address));
  if (inner) throw new NonPublicAddressError(`${host} is not a public address (${inner})`);
}

/**
 * A DNS lookup for http.request that connects only to public addresses: checked at connection time,
 * so that a name that resolved to a public address when the endpoint was saved cannot be pointed at
 * an inner one later (DNS rebinding).
 */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as dns.LookupAddress[];
    const inner = list.find((entry) => !isPublicAddress(entry.address));
    if (inner || !list.length) return callback(new NonPublicAddressError(`${hostname} is not a public address (${inner?.address ?? 'none'})`), '', 0);
    if (options.all) return (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};
