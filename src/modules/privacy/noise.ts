/**
 * Sticky layered noise (Open Diffix Elm style; docs/decisions/015-privacy-threat-model.md).
 *
 * Every shown count is `true + Σ layer noise`. A layer is named by a string (one condition of the
 * question, the question as a whole, a bucket of a grouping) and its noise is a pure function of a
 * server secret and that name: HMAC-SHA256(secret, name) -> a standard normal (Box-Muller) clamped to
 * ±3, times `sd`. No state is kept anywhere: the same question gets the same answer in every process,
 * after any number of other questions, and a question that differs by one condition gets fresh noise on
 * the layers that differ.
 */
import { createHmac } from 'node:crypto';

/** Standard deviation of one layer, in persons. */
export const LAYER_SD = 3;
/** Width of the sticky low-count threshold band below the floor (see `threshold`). */
export const THRESHOLD_BAND = 8;
const CLAMP = 3;

function digest(secret: string, name: string): Buffer {
  return createHmac('sha256', secret).update(name).digest();
}

/** A uniform in (0, 1) from the digest's bytes at `at` (4 bytes). */
function uniform(d: Buffer, at: number): number {
  return (d.readUInt32BE(at) + 0.5) / 4_294_967_296;
}

/** The noise of one layer: deterministic in (secret, name), normal with `sd`, clamped to ±3 sd. */
export function layerNoise(secret: string, name: string, sd = LAYER_SD): number {
  const d = digest(secret, `layer\u0000${name}`);
  const z = Math.sqrt(-2 * Math.log(uniform(d, 0))) * Math.cos(2 * Math.PI * uniform(d, 4));
  return Math.max(-CLAMP, Math.min(CLAMP, z)) * sd;
}

/** Σ noise of the distinct layers (a layer named twice counts once). */
export function totalNoise(secret: string, layers: readonly string[], sd = LAYER_SD): number {
  let sum = 0;
  for (const name of new Set(layers)) sum += layerNoise(secret, name, sd);
  return sum;
}

/**
 * The sticky low-count threshold of a question or bucket: an integer in [floor - band, floor], seeded
 * like a layer. A true count at or above the floor always passes (no honest question is refused); one
 * below it passes only above this threshold, which an attacker cannot calibrate a padding set against
 * because every different question has its own.
 */
export function threshold(secret: string, name: string, floor: number, band = THRESHOLD_BAND): number {
  const d = digest(secret, `threshold\u0000${name}`);
  return floor - Math.floor(uniform(d, 0) * (band + 1));
}

/** Standard deviation of a static layer (one per condition of the question answered; docs/decisions/052). */
export const STATIC_SD = 2;
/** Standard deviation of the dynamic layer, seeded by the member set's hash. */
export const DYNAMIC_SD = 3;
/** Effects below this many persons are always low; at exactly this many, low or not by the set's seed. */
export const LOW_EFFECT = 3;

/**
 * The low-effect threshold of one item: LOW_EFFECT or LOW_EFFECT + 1, seeded by the hash of the persons
 * the item changes (`diffHash`), so it is the same however the item is written and sticky per set.
 */
export function lowEffectThreshold(secret: string, diffHash: string): number {
  return LOW_EFFECT + (digest(secret, `low-effect\u0000${diffHash}`)[0]! & 1);
}

/** Hard bound of |totalNoise| for `layerCount` layers (each is clamped to ±3 sd). */
export function noiseBound(layerCount: number, sd = LAYER_SD): number {
  return Math.ceil(CLAMP * sd * layerCount);
}
