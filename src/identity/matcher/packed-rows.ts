/**
 * The file path's candidate stream (candidateSql with output `packed`, in order of r) turned into each
 * row's shortlist. A million-row file streams millions of candidates of which the level rules see at most
 * five a row (point.ts shortlist), so a candidate is kept as its chunk (typed arrays read from the raw vectors),
 * its index there, its packed features and its weight; only the shortlisted ones become ScoredCandidate objects
 * with BigInt keys, their features and probability. Weights come from
 * the packed features through a per-scoring cache (the same weight() for equal features and names).
 */
import type { DuckDBDataChunk } from '@duckdb/node-api';
import { int32Copy, int64Copy, rawColumn, validIn, validityCopy } from '../../graph/index.ts';
import { unpackFeatures } from './candidates.ts';
import { canQualify, type ScoredCandidate } from './levels.ts';
import { tfBits, type Scoring } from './params.ts';
import { ADDR, ID, type Features } from './types.ts';

/** Every packed feature value is below this (candidates.ts PACK_SQL: 18 bits and the swap bit). */
const PACKED_VALUES = 1 << 19;

/**
 * weight(unpackFeatures(fp), first, last) of `scoring`, computed once per packed value: the features object is
 * shared (frozen) and the name-free weight cached; a scorer with term-frequency tables adds them per call.
 */
export function packedWeigher(scoring: Scoring): {
  weight(fp: number, first: string | null, last: string | null): number;
  features(fp: number): Features;
  /** canQualify of the features, once per packed value. */
  decidable(fp: number): boolean;
} {
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
  // 0: not yet known, 1: cannot take part in a decision, 2: can (levels.ts canQualify).
  const decidable = new Uint8Array(PACKED_VALUES);
  return {
    features,
    decidable(fp) {
      if (decidable[fp] === 0) decidable[fp] = canQualify(features(fp)) ? 2 : 1;
      return decidable[fp] === 2;
    },
    weight(fp, first, last) {
      const f = features(fp);
      return tf ? base[fp]! + tfBits(f, first, last, tf.first, tf.last) : base[fp]!;
    },
  };
}

/**
 * One chunk of the packed candidate stream (r, person_key, household_key, hh_ref, fp), copied into typed arrays:
 * no JS value per cell, and a BigInt only for the candidates a shortlist keeps.
 */
export interface PackedColumns {
  count: number;
  r: Int32Array;
  fp: Int32Array;
  person: BigInt64Array;
  household: BigInt64Array;
  householdValid: Uint32Array | null;
  ref: BigInt64Array;
  refValid: Uint32Array | null;
}

/** A raw chunk of candidateSql's packed output (its column order and types). */
export function packedColumnsOfChunk(chunk: DuckDBDataChunk): PackedColumns {
  const col = (i: number, bytes: number) => rawColumn(chunk, i, bytes);
  const household = col(2, 8);
  const ref = col(3, 8);
  return {
    count: chunk.rowCount,
    r: int32Copy(col(0, 4)),
    person: int64Copy(col(1, 8)),
    fp: int32Copy(col(4, 4)),
    household: int64Copy(household),
    householdValid: validityCopy(household),
    ref: int64Copy(ref),
    refValid: validityCopy(ref),
  };
}

/** Address and digital agreement as point.ts shortlist reads them, on packed features. */
const addressAgrees = (fp: number) => {
  const a = (fp >> 15) & 7;
  return a === ADDR.unit || a === ADDR.street;
};
const idAgrees = (fp: number) => (fp & 7) === ID.agree || ((fp >> 3) & 7) === ID.agree;

/**
 * One row's candidates at a time: `start` with the row's names as staged, `add` per candidate, `take()`
 * the shortlist exactly as point.ts shortlist followed by a sort by (weight desc, person key asc).
 */
export function createRowShortlister(scoring: Scoring) {
  const weigher = packedWeigher(scoring);
  let first: string | null = null;
  let last: string | null = null;
  let n = 0;
  // The row's candidates: their weight and packed features, and where their keys are (chunk, index).
  const weights: number[] = [];
  const fps: number[] = [];
  const chunks: PackedColumns[] = [];
  const at: number[] = [];
  const order: number[] = [];
  const person = (i: number) => chunks[i]!.person[at[i]!]!;
  const byWeight = (a: number, b: number) => {
    const d = weights[b]! - weights[a]!;
    if (d !== 0) return d;
    const pa = person(a);
    const pb = person(b);
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  };
  const materialize = (i: number): ScoredCandidate => {
    const c = chunks[i]!;
    const j = at[i]!;
    return {
      personKey: c.person[j]!,
      householdKey: validIn(c.householdValid, j) ? c.household[j]! : null,
      hhRef: validIn(c.refValid, j) ? c.ref[j]! : null,
      features: weigher.features(fps[i]!),
      weight: weights[i]!,
      probability: scoring.probability(weights[i]!),
    };
  };
  return {
    start(firstName: string | null, lastName: string | null) {
      first = firstName;
      last = lastName;
      n = 0;
    },
    /** Candidate `i` of `columns` (its r is the row started); one that can take part in no decision is skipped. */
    add(columns: PackedColumns, i: number) {
      const fp = columns.fp[i]!;
      if (!weigher.decidable(fp)) return;
      weights[n] = weigher.weight(fp, first, last);
      fps[n] = fp;
      chunks[n] = columns;
      at[n] = i;
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
      order.forEach((i, at) => {
        if (at < 3 || i === addr || i === id) out.push(materialize(i));
      });
      return out;
    },
  };
}
