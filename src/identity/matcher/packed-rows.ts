/**
 * The file path's candidate stream (candidateSql with output `packed`, in order of r) turned into each
 * row's shortlist. A million-row file streams millions of candidates of which the level rules see at most
 * five a row (point.ts shortlist), so a candidate is kept as four references and its weight; only the
 * shortlisted ones become ScoredCandidate objects with their features and probability. Weights come from
 * the packed features through a per-scoring cache (the same weight() for equal features and names).
 */
import { unpackFeatures } from './candidates.ts';
import type { ScoredCandidate } from './levels.ts';
import { tfBits, type Scoring } from './params.ts';
import { ADDR, ID, type Features } from './types.ts';

/** Every packed feature value is below this (candidates.ts PACK_SQL: 18 bits and the swap bit). */
const PACKED_VALUES = 1 << 19;

/**
 * weight(unpackFeatures(fp), first, last) of `scoring`, computed once per packed value: the features object is
 * shared (frozen) and the name-free weight cached; a scorer with term-frequency tables adds them per call.
 */
export function packedWeigher(scoring: Scoring): { weight(fp: number, first: string | null, last: string | null): number; features(fp: number): Features } {
  const featureOf: (Features | undefined)[] = new Array(PACKED_VALUES);
  const base = new Float64Array(PACKED_VALUES);
  const features = (fp: number): Features => {
    let f = featureOf[fp];
    if (f === undefined) {
      f = Object.freeze(unpackFeatures(fp));
      featureOf[fp] = f;
      base[fp] = scoring.weight(f, null, null);
    }
    return f;
  };
  const tf = scoring.tf;
  return {
    features,
    weight(fp, first, last) {
      const f = features(fp);
      return tf ? base[fp]! + tfBits(f, first, last, tf.first, tf.last) : base[fp]!;
    },
  };
}

/** Address and digital agreement as point.ts shortlist reads them, on packed features. */
const addressAgrees = (fp: number) => { const a = (fp >> 15) & 7; return a === ADDR.unit || a === ADDR.street; };
const idAgrees = (fp: number) => (fp & 7) === ID.agree || ((fp >> 3) & 7) === ID.agree;

const big = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as bigint | number));

/**
 * One row's candidates at a time: `start(r)` (with the row's names as staged), `add` per candidate, `take()`
 * the shortlist exactly as point.ts shortlist followed by a sort by (weight desc, person key asc).
 */
export function createRowShortlister(scoring: Scoring) {
  const weigher = packedWeigher(scoring);
  let first: string | null = null;
  let last: string | null = null;
  let n = 0;
  const weights: number[] = [];
  const fps: number[] = [];
  const persons: unknown[] = [];
  const households: unknown[] = [];
  const refs: unknown[] = [];
  const order: number[] = [];
  const byWeight = (a: number, b: number) => {
    const d = weights[b]! - weights[a]!;
    if (d !== 0) return d;
    const pa = big(persons[a])!;
    const pb = big(persons[b])!;
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  };
  const materialize = (i: number): ScoredCandidate => ({
    personKey: big(persons[i])!, householdKey: big(households[i]), hhRef: big(refs[i]),
    features: weigher.features(fps[i]!), weight: weights[i]!, probability: scoring.probability(weights[i]!),
  });
  return {
    start(firstName: string | null, lastName: string | null) {
      first = firstName;
      last = lastName;
      n = 0;
    },
    add(person: unknown, household: unknown, ref: unknown, fp: number) {
      weights[n] = weigher.weight(fp, first, last);
      fps[n] = fp;
      persons[n] = person;
      households[n] = household;
      refs[n] = ref;
      n++;
    },
    take(): ScoredCandidate[] {
      order.length = n;
      for (let i = 0; i < n; i++) order[i] = i;
      order.sort(byWeight);
      if (n <= 3) return order.map(materialize);
      const addr = order.find((i) => addressAgrees(fps[i]!)) ?? order[0]!;
      const id = order.find((i) => idAgrees(fps[i]!)) ?? order[0]!;
      const out: ScoredCandidate[] = [];
      order.forEach((i, at) => { if (at < 3 || i === addr || i === id) out.push(materialize(i)); });
      return out;
    },
  };
}
