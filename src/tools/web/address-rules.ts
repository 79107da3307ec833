import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses `web_fetch` may never reach (SPEC §13): anything that is not a public
 * unicast address. Addresses are checked after the host is resolved, so a name that points
 * at a private address is refused like the address itself. IPv6 forms that carry an IPv4
 * address (mapped, translated, compatible, NAT64, 6to4) are judged by the IPv4 address
 * inside.
 */

/** [first octets as a number, prefix length, what it is] for IPv4. */
const V4_BLOCKS: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved or broadcast'],
];

function v4Number(address: string): number {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

const V4_RANGES = V4_BLOCKS.map(([base, bits, kind]) => ({
  base: v4Number(base),
  size: 2 ** (32 - bits),
  kind,
}));

/** Why an IPv4 address is refused, or undefined for a public one. */
function v4Kind(n: number): string | undefined {
  return V4_RANGES.find((r) => n >= r.base && n < r.base + r.size)?.kind;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included). */
export function v6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = v4Number(tail[1]!);
    text = `${text.slice(0, tail.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const fill = rest === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => Number.parseInt(g, 16));
}

const startsWith = (groups: number[], prefix: number[]) => prefix.every((g, i) => groups[i] === g);

/** The IPv4 address carried in groups `at` and `at + 1`. */
const embedded = (groups: number[], at: number) => ((groups[at]! << 16) | groups[at + 1]!) >>> 0;

/** Why an IPv6 address is refused, or undefined for a public one. */
function v6Kind(groups: number[]): string | undefined {
  const first = groups[0]!;
  const zeros = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeros(8)) return 'unspecified';
  if (zeros(7) && groups[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): the IPv4 address decides.
  if (zeros(5) && groups[5] === 0xffff) return inner(embedded(groups, 6));
  // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765, ::ffff:0:0:0/96): likewise.
  if (zeros(4) && groups[4] === 0xffff && groups[5] === 0) return inner(embedded(groups, 6));
  if (zeros(6)) return inner(embedded(groups, 6));
  if (startsWith(groups, [0x64, 0xff9b, 0, 0, 0, 0])) return inner(embedded(groups, 6));
  if (startsWith(groups, [0x64, 0xff9b, 1])) return 'local NAT64';
  if (first === 0x2002) return inner(embedded(groups, 1));
  if (startsWith(groups, [0x2001, 0])) return 'Teredo';
  if (startsWith(groups, [0x2001, 0xdb8])) return 'documentation';
  if (startsWith(groups, [0x100, 0, 0, 0])) return 'discard';
  if ((first & 0xfe00) === 0xfc00) return 'unique-local';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xffc0) === 0xfec0) return 'site-local';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/** An IPv4 address inside an IPv6 one: refused when the IPv4 address would be. */
function inner(n: number): string | undefined {
  const kind = v4Kind(n);
  return kind ? `${kind} (inside an IPv6 address)` : undefined;
}

/**
 * Why `address` (an IP literal) may not be reached — `loopback`, `private`, `link-local`… —
 * or undefined when it is a public address. Anything that is not an IP address is refused.
 */
export function blockedKind(address: string): string | undefined {
  if (isIPv4(address)) return v4Kind(v4Number(address));
  if (isIPv6(address)) return v6Kind(v6Groups(address));
  return 'not an IP address';
}
