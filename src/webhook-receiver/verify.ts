import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifies a webhook request from the Audience Data Service, exactly as a receiver should (spec
 * section 6). Self-contained (node:crypto only) so receivers can copy this file as it is.
 *
 *   const result = verifyWebhook({ secret, rawBody, timestamp: req.headers['x-svc-timestamp'],
 *                                  signature: req.headers['x-svc-signature'] });
 *   if (!result.ok) return res.writeHead(400).end(result.reason);
 *
 * Use the raw request body bytes: a re-serialized JSON object will not match.
 */

export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type VerifyResult =
  { ok: true; timestamp: number } | { ok: false; reason: 'missing_header' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature' };

export interface VerifyInput {
  /** The signing secret shown once when the organization URL or the subscription was created. */
  secret: string;
  rawBody: string | Buffer;
  /** Value of the X-SVC-Timestamp header (unix seconds). */
  timestamp: string | string[] | undefined | null;
  /** Value of the X-SVC-Signature header (`v1=<hex>`; several comma-separated values are accepted during rotation). */
  signature: string | string[] | undefined | null;
  /** Receiver's current time in unix seconds; defaults to now. */
  nowSeconds?: number;
  toleranceSeconds?: number;
}

/** `v1=` + lowercase hex HMAC-SHA256(secret, "{timestamp}.{raw_body}"). */
export function computeSignature(secret: string, timestamp: number | string, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
  return `v1=${mac}`;
}

export function verifyWebhook(input: VerifyInput): VerifyResult {
  const ts = Array.isArray(input.timestamp) ? input.timestamp[0] : input.timestamp;
  const sig = Array.isArray(input.signature) ? input.signature.join(',') : input.signature;
  if (!ts || !sig) return { ok: false, reason: 'missing_header' };
  if (!/^\d{1,12}$/.test(ts)) return { ok: false, reason: 'bad_timestamp' };
  const timestamp = Number(ts);
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  // Absolute difference: a timestamp far in the future is as suspect as an old one (replay window).
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return { ok: false, reason: 'stale_timestamp' };
  const expected = Buffer.from(computeSignature(input.secret, ts, input.rawBody));
  for (const candidate of sig.split(',').map((s) => s.trim())) {
    const given = Buffer.from(candidate);
    // Constant time: a byte-by-byte early exit would leak how much of a forged signature was right.
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, timestamp };
  }
  return { ok: false, reason: 'bad_signature' };
}
