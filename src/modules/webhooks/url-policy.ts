import { isIP } from 'node:net';
import { DomainError } from '../../core/errors.ts';
import { isLocalName, judgeAddress, refusesConfiguredHost, type OutboundPolicy } from '../../lib/outbound/index.ts';

/**
 * Where webhooks may be sent: the service's one outbound-target policy (src/lib/outbound). HTTPS to
 * public addresses; with OUTBOUND_ALLOW_PRIVATE_TARGETS=true also private and loopback targets, and
 * plain HTTP only to those, so a newcomer can point webhooks at a receiver on their own machine.
 * Link-local and metadata addresses are refused in every mode.
 */
export type TargetPolicy = OutboundPolicy;

export function targetPolicy(config: { outbound: { allowPrivateTargets: boolean } }): TargetPolicy {
  return { allowPrivate: config.outbound.allowPrivateTargets };
}

/** True for every address that is not public (loopback, private, link-local, reserved, embedded forms). */
export function isPrivateAddress(address: string): boolean {
  return judgeAddress(address) !== 'public';
}

export const invalidWebhookUrl = (message: string) =>
  new DomainError('INVALID_WEBHOOK_URL', message, {
    nextStep: 'Use an absolute https:// URL on a public host (plain http:// only to loopback when private targets are allowed).',
  });

/**
 * Checks a target URL when it is configured (and again before each attempt). Names are not resolved
 * here: a name can point anywhere later, so the connect-time lookup of the policy checks every address.
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
  // URL parsing normalizes IPv4 spellings (0x7f.1, 2130706433) to dotted quads, so a literal is seen as one.
  const literal = isIP(host) !== 0;
  const local = isLocalName(host) || (literal && isPrivateAddress(host));
  if (refusesConfiguredHost(policy, host)) {
    throw invalidWebhookUrl('The webhook URL points to a private, loopback, link-local or metadata address.');
  }
  if (url.protocol === 'http:' && !(local && policy.allowPrivate)) {
    throw invalidWebhookUrl('The webhook URL must use https (plain http is allowed only to private targets when they are allowed).');
  }
  return url;
}
