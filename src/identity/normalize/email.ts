/**
 * Email normalization.
 *
 * Two forms are produced:
 * - `normalizeEmail`: the address as the customer holds it, trimmed and lower-cased. This is the
 *   form hashed for `email_sha256` (the industry convention for hashed-email exchange).
 * - `emailMatchKey`: a provider-aware mailbox key for matching. Providers that deliver
 *   `user+tag@` to `user@` get the tag removed, and Gmail also ignores dots in the local part
 *   (googlemail.com is the same mailbox namespace as gmail.com).
 *
 * Provider choices (documented because they change match rates):
 * - gmail.com / googlemail.com: drop `+tag`, drop dots, domain -> gmail.com.
 * - outlook/hotmail/live/msn, icloud/me/mac, fastmail, protonmail/proton.me/pm.me: drop `+tag`
 *   only. Their domains are NOT folded into each other: e.g. hotmail.com and outlook.com hold
 *   distinct accounts with the same local part.
 * - yahoo: NOT folded. Yahoo's `base-keyword@` disposable addresses use a chosen base name that
 *   is not the account's own id, so stripping `-keyword` would invent a mailbox that may belong
 *   to someone else.
 * - everything else: only lower-casing (a `+` may be a literal character on other servers).
 */
import { sha256Hex } from './hash.ts';
import { fail, ok, type Normalized } from './types.ts';

// Pragmatic RFC 5322 "dot-atom" local part; quoted local parts are too rare in customer lists
// to be worth the false accepts.
const LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export function normalizeEmail(raw: string): Normalized<string> {
  let v = raw.normalize('NFKC').trim().toLowerCase();
  // Common wrappers from exported contact lists: "mailto:x@y", "<x@y>", "Name <x@y>".
  v = v.replace(/^mailto:/, '');
  const angle = /<([^<>]+)>\s*$/.exec(v);
  if (angle?.[1]) v = angle[1].trim();
  v = v.replace(/\s+/g, '');
  if (v === '') return fail('empty', 'email is empty');
  const at = v.lastIndexOf('@');
  if (at <= 0 || at === v.length - 1 || v.indexOf('@') !== at) {
    return fail('email_malformed', 'email must contain exactly one @ with text on both sides');
  }
  const local = v.slice(0, at);
  // A trailing dot on the domain is a valid FQDN spelling but never how mailboxes are stored.
  const domain = v.slice(at + 1).replace(/\.$/, '');
  if (local.length > 64 || !LOCAL.test(local)) {
    return fail('email_malformed', 'email local part has invalid characters or dots');
  }
  const labels = domain.split('.');
  const tld = labels[labels.length - 1] ?? '';
  if (domain.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || !/^(?:[a-z]{2,63}|xn--[a-z0-9-]+)$/.test(tld)) {
    return fail('email_malformed', 'email domain is not a valid host name');
  }
  return ok(`${local}@${domain}`);
}

const GMAIL = new Set(['gmail.com', 'googlemail.com']);
const PLUS_TAG_DOMAINS = new Set([
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'hotmail.co.uk',
  'outlook.co.uk',
  'icloud.com',
  'me.com',
  'mac.com',
  'fastmail.com',
  'fastmail.fm',
  'protonmail.com',
  'protonmail.ch',
  'proton.me',
  'pm.me',
]);

/** Provider-aware mailbox key of an already normalized email (see module comment). */
export function emailMatchKey(normalized: string): string {
  const at = normalized.lastIndexOf('@');
  if (at <= 0) return normalized;
  let local = normalized.slice(0, at);
  let domain = normalized.slice(at + 1);
  if (GMAIL.has(domain)) {
    local = stripPlusTag(local).replace(/\./g, '');
    domain = 'gmail.com';
  } else if (PLUS_TAG_DOMAINS.has(domain)) {
    local = stripPlusTag(local);
  }
  return `${local}@${domain}`;
}

function stripPlusTag(local: string): string {
  const plus = local.indexOf('+');
  // "+tag" with an empty mailbox before it is not a sub-address; keep it as is.
  return plus > 0 ? local.slice(0, plus) : local;
}

/** Lowercase-hex SHA-256 of an already normalized email (or match key). */
export function emailSha256(normalized: string): string {
  return sha256Hex(normalized);
}
