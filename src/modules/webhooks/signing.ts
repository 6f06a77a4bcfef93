import { randomBase62 } from '../../lib/ids.ts';
import { computeSignature } from '../../webhook-receiver/verify.ts';

/** Secrets are 40 base62 characters (~238 bits) after a recognizable prefix; the whole string is the HMAC key. */
export const newSigningSecret = () => `whsec_${randomBase62(40)}`;

/** Headers of one attempt. Signed afresh per attempt so a retry never carries a stale timestamp. */
export function signedHeaders(input: {
  secret: string;
  body: string;
  nowMs: number;
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
  userAgent: string;
}) {
  const timestamp = Math.floor(input.nowMs / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': input.userAgent,
    'x-svc-event-id': input.eventId,
    'x-svc-event-type': input.eventType,
    'x-svc-delivery-id': input.deliveryId,
    'x-svc-attempt': String(input.attempt),
    'x-svc-timestamp': String(timestamp),
    'x-svc-signature': computeSignature(input.secret, timestamp, input.body),
  };
}
