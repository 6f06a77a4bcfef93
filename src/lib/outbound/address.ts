/**
 * How an outbound target address is judged (docs/decisions/027-input-and-outbound-policy.md).
 *
 * - `forbidden`: never dialled, whatever the settings: link-local (169.254/16, fe80::/10), cloud metadata
 *   endpoints, unspecified, multicast, broadcast, reserved and documentation ranges.
 * - `private`: loopback, RFC 1918, CGNAT, benchmarking, unique-local IPv6 and local-use NAT64; dialled
 *   only when the operator sets OUTBOUND_ALLOW_PRIVATE_TARGETS=true (tests do, for loopback receivers).
 * - `public`: everything else.
 *
 * Every IPv6 form that carries an IPv4 address (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64
 * 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32) is judged as that IPv4 address;
 * where a form carries two (Teredo server and client) or several possible positions, the strictest wins.
 */
import { BlockList, isIP } from 'node:net';

export type Verdict = 'public' | 'private' | 'forbidden';

const rank: Record<Verdict, number> = { public: 0, private: 1, forbidden: 2 };
const strictest = (verdicts: Verdict[]): Verdict => verdicts.reduce((a, b) => (rank[b] > rank[a] ? b : a), 'public');

function list(v4: [string, number][], v6: [string, number][]): BlockList {
  const l = new BlockList();
  for (const [net, prefix] of v4) l.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of v6) l.addSubnet(net, prefix, 'ipv6');
  return l;
}

/** Metadata services of the major clouds, and every address that cannot be a legitimate target. */
const FORBIDDEN = list(
  [
    ['0.0.0.0', 8],
    ['169.254.0.0', 16],
    ['100.100.100.200', 32],
    ['168.63.129.16', 32],
    ['192.0.0.192', 32],
    ['192.0.2.0', 24],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ],
  [
    ['::', 128],
    ['fe80::', 10],
    ['fec0::', 10],
    ['fd00:ec2::254', 128],
    ['ff00::', 8],
    ['2001:db8::', 32],
    ['100::', 64],
  ],
);

const PRIVATE = list(
  [
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
  ],
  [
    ['::1', 128],
    ['fc00::', 7],
    ['64:ff9b:1::', 48],
  ],
);

/** The eight 16-bit groups of an IPv6 address (zone ids stripped, a trailing dotted quad expanded). */
export function ipv6Groups(ip: string): number[] | null {
  let text = ip.replace(/%.*$/, '').toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const b = quad.slice(1).map(Number);
    text = text.slice(0, quad.index) + `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string) => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  const groups = [...head, ...Array<number>(fill).fill(0), ...tail];
  return groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff) ? null : groups;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 addresses an IPv6 address carries (none for a native IPv6 address). */
export function embeddedIPv4(groups: number[]): string[] {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && g5 === 0xffff) return [v4(g6, g7)]; // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 4) && g4 === 0xffff && g5 === 0) return [v4(g6, g7)]; // ::ffff:0:a.b.c.d (translated)
  if (zeros(0, 6) && (g6 !== 0 || g7 > 1)) return [v4(g6, g7)]; // ::a.b.c.d (compatible)
  if (g0 === 0x64 && g1 === 0xff9b && zeros(2, 6)) return [v4(g6, g7)]; // NAT64 well-known prefix
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) {
    // Local-use NAT64 (RFC 8215): the IPv4 sits after a /48 or a /96 prefix (RFC 6052 positions).
    return [v4(g6, g7), v4(g3, ((g4 & 0xff) << 8) | (g5 >> 8))];
  }
  if (g0 === 0x2002) return [v4(g1, g2)]; // 6to4
  if (g0 === 0x2001 && g1 === 0) return [v4(g2, g3), v4(g6 ^ 0xffff, g7 ^ 0xffff)]; // Teredo: server, client
  return [];
}

function judgeIPv4(ip: string): Verdict {
  if (FORBIDDEN.check(ip, 'ipv4')) return 'forbidden';
  if (PRIVATE.check(ip, 'ipv4') || ip === '255.255.255.255') return ip === '255.255.255.255' ? 'forbidden' : 'private';
  return 'public';
}

/** The verdict for an IP literal (brackets allowed); `forbidden` for anything that is not an IP address. */
export function judgeAddress(address: string): Verdict {
  const ip = address.replace(/^\[|\]$/g, '');
  const bare = ip.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return judgeIPv4(bare);
  if (family !== 6) return 'forbidden';
  const groups = ipv6Groups(bare);
  if (!groups) return 'forbidden';
  const own: Verdict = FORBIDDEN.check(bare, 'ipv6') ? 'forbidden' : PRIVATE.check(bare, 'ipv6') ? 'private' : 'public';
  // A zone id only makes sense for link-local scopes: such an address never leaves this host's links.
  if (ip !== bare) return 'forbidden';
  return strictest([own, ...embeddedIPv4(groups).map(judgeIPv4)]);
}

/** Host names that always mean this machine. */
export const isLocalName = (host: string) => {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
};
