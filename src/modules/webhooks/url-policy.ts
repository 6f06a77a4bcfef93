import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../../http/errors.ts';

/**
 * Where webhooks may be sent. In production (or with WEBHOOK_ALLOW_PRIVATE_TARGETS=false) only HTTPS
 * to public addresses: a customer-supplied URL must never reach the service's own network (SSRF).
 * In development private targets are allowed, and plain HTTP only to a private or loopback address, so
 * a newcomer can point webhooks at a receiver on their own machine.
 */
export interface TargetPolicy {
  allowPrivate: boolean;
}

export function targetPolicy(config: { production: boolean; webhooks: { allowPrivateTargets: boolean | null } }): TargetPolicy {
  return { allowPrivate: config.webhooks.allowPrivateTargets ?? !config.production };
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b:1::', 48],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** True for loopback, private, link-local, CGNAT, multicast, reserved and documentation addresses. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d) and NAT64 addresses reach IPv4 hosts: judge the embedded address.
    const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
    if (hexMapped) {
      const hi = parseInt(hexMapped[1]!, 16);
      const lo = parseInt(hexMapped[2]!, 16);
      return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
    }
    return blocked.check(ip, 'ipv6');
  }
  return false;
}

const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

export const invalidWebhookUrl = (message: string) =>
  new AppError('INVALID_WEBHOOK_URL', 400, message, {
    nextStep: 'Use an absolute https:// URL on a public host (plain http:// only to loopback in development).',
  });

/**
 * Checks a target URL when it is configured (and again before each attempt). Names are not resolved
 * here: a name can point anywhere later, so the send-time lookup (guardedLookup) checks every address.
 */
export function checkTargetUrl(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidWebhookUrl('The webhook URL is not a valid absolute URL.');
  }
  if (raw.length > 2048) throw invalidWebhookUrl('The webhook URL is longer than 2048 characters.');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidWebhookUrl('The webhook URL must use https.');
  if (url.username || url.password) throw invalidWebhookUrl('The webhook URL must not carry credentials.');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const local = isLocalName(host) || isPrivateAddress(host);
  if (local && !policy.allowPrivate) {
    throw invalidWebhookUrl('The webhook URL points to a private, loopback or link-local address.');
  }
  if (url.protocol === 'http:' && !(local && policy.allowPrivate)) {
    throw invalidWebhookUrl('The webhook URL must use https (plain http is allowed only to loopback in development).');
  }
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that refuses private addresses, so the address checked is the address
 * connected to (a DNS answer that changes between check and connect cannot slip through).
 */
export function guardedLookup(policy: TargetPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, []);
      if (!policy.allowPrivate && (isLocalName(hostname) || addresses.some((a) => isPrivateAddress(a.address)))) {
        const blockedError = Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'TARGET_NOT_ALLOWED' });
        return callback(blockedError, []);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
