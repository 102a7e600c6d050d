import dns from 'node:dns';
import net from 'node:net';

/**
 * Addresses that are not on the public internet: loopback, private, link-local (cloud metadata
 * services live there), carrier-grade NAT, unspecified, multicast and reserved ranges.
 */
const NON_PUBLIC = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  NON_PUBLIC.addSubnet(address, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const version = net.isIP(address);
  if (version === 0) return false;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return !NON_PUBLIC.check(mapped[1], 'ipv4');
  return !NON_PUBLIC.check(address, version === 4 ? 'ipv4' : 'ipv6');
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
