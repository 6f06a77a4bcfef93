/**
 * Fitted parameters (issue #15): `refitMatchParams` on the small test graph (u from random pairs, m by
 * EM over blocked pairs, TF tables, logistic, I threshold), the file beside the release and what the
 * matcher reads from it: "prior" keeps model.ts, "fitted" scores with the file, on both paths row for row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMatcher, type MatchOptions, type MatchResult } from '../../src/identity/matcher/index.ts';
import { generateHardenedSet } from '../../src/identity/matcher/hardened-set.ts';
import { FIELDS } from '../../src/identity/matcher/estimate.ts';
import { WEIGHTS } from '../../src/identity/matcher/model.ts';
import { DOB, EMAIL, ID, LAST } from '../../src/identity/matcher/types.ts';
import {
  matchParamsPath,
  paramsPathOfIndex,
  readMatchParams,
  scoringOf,
  writeMatchParams,
  PRIOR_SCORING,
  type MatchParams,
} from '../../src/identity/matcher/params.ts';
import { conflictGuard, refitMatchParams } from '../../src/identity/matcher/refit.ts';
import { normalizeMatchInput } from '../../src/identity/normalize/record.ts';
import { testGraph, TEST_GRAPH_DIR, type TestGraph } from './helpers.ts';

let g: TestGraph;
let params: MatchParams;
let dir: string;
const ALL: MatchOptions = { matchLevels: ['I', 'H', 'D', 'S', 'A'], spatialMode: 'auto' };

beforeAll(async () => {
  g = await testGraph(TEST_GRAPH_DIR, 4000);
  params = await refitMatchParams(g.releaseFile, { randomPairs: 4000, listRows: 1500, seed: 5, tf: true });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-match-params-'));
});
afterAll(() => {
  g?.warehouse.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('refitMatchParams', () => {
  it('estimates u, m, weights, TF tables and the logistic from the release', () => {
    expect(params.release).toBe(path.basename(g.releaseFile));
    expect(params.scorer).toBe('fitted');
    // the I threshold lies on the grid, at or above the conflict guard, and kept the list's precision
    expect(params.i_threshold.weight % 0.25).toBe(0);
    expect(params.i_threshold.weight).toBeGreaterThanOrEqual(conflictGuard(params.weights, 2)); // TF applied: TF_MAX_UP
    expect(params.i_threshold.precision).toBeGreaterThanOrEqual(0.999);
    expect(params.i_threshold.absent).toBe(0);
    expect(params.sample.persons).toBe(4000);
    expect(params.sample.blocked_pairs).toBeGreaterThan(1500);
    expect(params.em.converged).toBe(true);
    for (const f of FIELDS) {
      for (const t of [params.u[f], params.m[f]]) {
        expect(t).toHaveLength(WEIGHTS[f].length);
        expect(t.slice(1).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      }
      expect(params.weights[f][0]).toBe(0);
      for (const w of params.weights[f]) expect(Math.abs(w)).toBeLessThanOrEqual(14);
    }
    // agreement is evidence for a match, disagreement against, on every identifying field
    const disagree = { email: ID.disagree, phone: ID.disagree, last: LAST.disagree, dob: DOB.disagree };
    for (const f of ['email', 'phone', 'last', 'dob'] as const) {
      expect(params.weights[f][1]).toBeGreaterThan(0);
      expect(params.weights[f][disagree[f]]!).toBeLessThan(0);
    }
    // a one-typo email weighs more than a disagreeing one, a phonetic surname more than a disagreeing one
    expect(params.weights.email[EMAIL.near]!).toBeGreaterThan(params.weights.email[ID.disagree]!);
    expect(params.weights.last[LAST.phonetic]!).toBeGreaterThan(params.weights.last[LAST.disagree]!);
    // the most common surname is listed and its share is its count over the persons
    const [top, share] = Object.entries(params.tf.last.shares).sort((a, b) => b[1] - a[1])[0]!;
    expect(share * 4000).toBe(Math.round(share * 4000));
    expect(share).toBeGreaterThanOrEqual(params.tf.last.unlistedShare);
    expect(top).toMatch(/^[A-Z' -]+$/);
    expect(params.logistic.a).toBeGreaterThan(0);
    // refit with tf: the fitted scorer applies the name TF adjustment (its logistic and threshold were fitted with it)
    expect(params.tf_applied).toBe(true);
    expect(params.weights.dob).toHaveLength(8);
  });
});

describe('the params file beside the release', () => {
  it('is named after the release and round-trips; a malformed file is an error', () => {
    expect(matchParamsPath('/d/graph-1.0-x.duckdb')).toBe('/d/graph-1.0-x.match-params.json');
    expect(paramsPathOfIndex('/d/graph-1.0-x.match-v6.duckdb')).toBe('/d/graph-1.0-x.match-params.json');
    const file = path.join(dir, 'r.match-params.json');
    expect(readMatchParams(file)).toBeNull();
    writeMatchParams(file, params);
    expect(readMatchParams(file)).toEqual(params);
    fs.writeFileSync(file, JSON.stringify({ ...params, weights: { email: [0, 1] } }));
    expect(() => readMatchParams(file)).toThrow(/not a match parameters file/);
  });

  it('"prior" keeps the built-in scoring; "fitted" scores with the file and both paths stay equal row for row', async () => {
    expect(scoringOf({ ...params, scorer: 'prior' })).toBe(PRIOR_SCORING);
    expect(scoringOf(null)).toBe(PRIOR_SCORING);
    expect(scoringOf(params).iThreshold).toBe(params.i_threshold.probability);
    // A copy of the index as the sidecar of a release "r" whose params say "fitted".
    const index = path.join(dir, 'r.match-v6.duckdb');
    fs.copyFileSync(g.indexPath, index);
    writeMatchParams(path.join(dir, 'r.match-params.json'), { ...params, scorer: 'fitted' });
    const fitted = createMatcher({ warehouse: g.warehouse, indexPath: index });
    const prior = createMatcher({ warehouse: g.warehouse, indexPath: g.indexPath }); // the shared graph has no params file
    const set = await generateHardenedSet(g.warehouse, 'graph', 1200, 9);
    const rows = set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 }));
    const file = await fitted.matchBatch(rows, ALL); // > 1000 rows: the file path
    const point: MatchResult[] = [];
    for (let i = 0; i < rows.length; i += 100) point.push(...(await fitted.matchBatch(rows.slice(i, i + 100), ALL)));
    expect(point).toEqual(file);
    const before = await prior.matchBatch(rows, ALL);
    expect(file.map((r) => r.matchConfidence)).not.toEqual(before.map((r) => r.matchConfidence));
    // The same file without TF: the names' frequencies moved some confidences (and the paths agree there too).
    const index2 = path.join(dir, 'r2.match-v6.duckdb');
    fs.copyFileSync(g.indexPath, index2);
    writeMatchParams(path.join(dir, 'r2.match-params.json'), { ...params, scorer: 'fitted', tf_applied: false });
    const noTf = createMatcher({ warehouse: g.warehouse, indexPath: index2 });
    const plain = await noTf.matchBatch(rows, ALL);
    expect(await noTf.matchBatch(rows.slice(0, 100), ALL)).toEqual(plain.slice(0, 100));
    expect(file.map((r) => r.matchConfidence)).not.toEqual(plain.map((r) => r.matchConfidence));
  });
});
