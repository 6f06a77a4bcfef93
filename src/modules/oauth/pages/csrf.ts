/**
 * CSRF protection of our forms: a token that is an HMAC, under a server key, of the form's purpose and
 * what binds it to this browser (the interaction id and its cookie, or an invitation token), plus a
 * same-origin check of `Origin` / `Sec-Fetch-Site` when the browser sends them. The provider's cookies
 * are SameSite=Lax as well.
 */
import { hmacSha256, safeEqual } from '../../../lib/crypto.ts';

export function csrfToken(key: string, purpose: string, binding: string): string {
  return hmacSha256(key, `${purpose}\n${binding}`).toString('base64url');
}

export function csrfValid(key: string, purpose: string, binding: string, submitted: unknown): boolean {
  return typeof submitted === 'string' && safeEqual(csrfToken(key, purpose, binding), submitted);
}

/** False when the browser says the form was posted from another site. */
export function sameOrigin(headers: Record<string, string | string[] | undefined>, issuer: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return false;
  const origin = headers.origin;
  if (typeof origin === 'string' && origin !== 'null' && origin !== new URL(issuer).origin) return false;
  return true;
}

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}
