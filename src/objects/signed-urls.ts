/**
 * HMAC-signed expiring URLs: the signature is the only credential of an upload (no Authorization
 * header). It covers the method, the object path and the expiry, so a URL cannot be replayed onto
 * another object, another shard, another upload version, or another method, nor extended.
 */
import { hmacSha256, safeEqual } from '../lib/crypto.ts';
import { AppError } from '../http/errors.ts';

export interface SignedTarget {
  method: 'PUT' | 'GET';
  /** The URL path, e.g. /v1/uploads/{org}/{segment}/{version}/{shard}. */
  path: string;
  expiresAt: Date;
}

const payload = (t: { method: string; path: string; expires: number }) => `${t.method}\n${t.path}\n${t.expires}`;

export function createUrlSigner(deps: { secret: string; publicUrl: string }) {
  const sign = (method: string, path: string, expires: number) =>
    hmacSha256(deps.secret, payload({ method, path, expires })).toString('base64url');

  return {
    /** The full URL with `expires` (unix seconds) and `signature` query parameters. */
    url(t: SignedTarget): string {
      const expires = Math.floor(t.expiresAt.getTime() / 1000);
      return `${deps.publicUrl}${t.path}?expires=${expires}&signature=${sign(t.method, t.path, expires)}`;
    },

    /** Throws 403 UPLOAD_URL_INVALID (tampered, wrong object or method) or 403 UPLOAD_URL_EXPIRED. */
    verify(method: string, path: string, query: { expires?: string; signature?: string }, now: Date): void {
      const expires = Number(query.expires);
      if (!query.signature || !Number.isSafeInteger(expires) || !safeEqual(sign(method, path, expires), query.signature)) {
        throw new AppError('UPLOAD_URL_INVALID', 403, 'The signed URL is not valid for this object (tampered, truncated or used with another method).', {
          nextStep: 'Use the upload_url exactly as returned; get fresh URLs by refreshing the segment (POST /v1/segments/{id}/refresh).',
        });
      }
      if (expires * 1000 <= now.getTime()) {
        throw new AppError('UPLOAD_URL_EXPIRED', 403, 'The signed URL has expired.', {
          details: { expired_at: new Date(expires * 1000).toISOString() },
          nextStep: 'Get fresh upload URLs with POST /v1/segments/{id}/refresh (valid 24 hours).',
        });
      }
    },
  };
}

export type UrlSigner = ReturnType<typeof createUrlSigner>;
