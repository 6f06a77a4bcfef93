/**
 * HMAC-signed expiring URLs: the signature is the only credential of an upload (no Authorization
 * header). It covers the method, the object path and the expiry, so a URL cannot be replayed onto
 * another object, another shard, another upload version, or another method, nor extended. A URL whose
 * expiry lies further ahead than the longest lifetime the service hands out is refused whatever its
 * signature, so a leaked key cannot mint lasting URLs.
 */
import { hmacSha256, safeEqual } from '../lib/crypto.ts';
import { DomainError } from '../core/errors.ts';

export interface SignedTarget {
  method: 'PUT' | 'GET';
  /** The URL path, e.g. /v1/uploads/{org}/{segment}/{version}/{shard}. */
  path: string;
  expiresAt: Date;
}

const payload = (t: { method: string; path: string; expires: number }) => `${t.method}\n${t.path}\n${t.expires}`;

export function createUrlSigner(deps: {
  /** The current signing key first (it signs), then keys rolled out within one URL lifetime (they still verify). */
  secrets: readonly string[];
  publicUrl: string;
  maxLifetimeSeconds: number;
}) {
  const sign = (secret: string, method: string, path: string, expires: number) =>
    hmacSha256(secret, payload({ method, path, expires })).toString('base64url');

  return {
    /** The full URL with `expires` (unix seconds) and `signature` query parameters. */
    url(t: SignedTarget): string {
      const expires = Math.floor(t.expiresAt.getTime() / 1000);
      return `${deps.publicUrl}${t.path}?expires=${expires}&signature=${sign(deps.secrets[0]!, t.method, t.path, expires)}`;
    },

    /** Throws 403 UPLOAD_URL_INVALID (tampered, wrong object or method) or 403 UPLOAD_URL_EXPIRED. */
    verify(method: string, path: string, query: { expires?: string; signature?: string }, now: Date): void {
      const expires = Number(query.expires);
      const signature = query.signature;
      const signed =
        !!signature && Number.isSafeInteger(expires) && deps.secrets.some((s) => safeEqual(sign(s, method, path, expires), signature));
      if (!signed || expires * 1000 > now.getTime() + deps.maxLifetimeSeconds * 1000) {
        throw new DomainError(
          'UPLOAD_URL_INVALID',
          'The signed URL is not valid for this object (tampered, truncated or used with another method).',
          {
            nextStep: 'Use the upload_url exactly as returned; get fresh URLs by refreshing the segment (POST /v1/segments/{id}/refresh).',
          },
        );
      }
      if (expires * 1000 <= now.getTime()) {
        throw new DomainError('UPLOAD_URL_EXPIRED', 'The signed URL has expired.', {
          details: { expired_at: new Date(expires * 1000).toISOString() },
          nextStep: 'Get fresh upload URLs with POST /v1/segments/{id}/refresh (valid 24 hours).',
        });
      }
    },
  };
}

export type UrlSigner = ReturnType<typeof createUrlSigner>;
