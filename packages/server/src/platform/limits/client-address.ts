import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (`::` filled in, a trailing IPv4 part as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (isIPv4(tail)) {
    const [a, b, c, d] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const [before, after] = [parse(head), parse(rest)];
  const zeros = rest === undefined ? [] : new Array<number>(8 - before.length - after.length).fill(0);
  return [...before, ...zeros, ...after];
}

/**
 * The client a limit counts (failed logins, wrong tokens, activations, mails asked for): an IPv4
 * address as it is, an IPv6 client by its /64. One IPv6 subscriber or server gets a whole /64 (often
 * more) and may use any of its 2^64 addresses: counted one by one, a guesser would never hit a limit.
 * An IPv4 address written as IPv6 (`::ffff:192.0.2.1`, a dual-stack socket) is that IPv4 address.
 */
export function limitedClient(address: string | undefined): string {
  // A socket already closed has no address: such requests share one count rather than none.
  if (!address) return 'unknown';
  const plain = address.split('%')[0];
  if (!isIPv6(plain)) return plain;
  const groups = ipv6Groups(plain);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
