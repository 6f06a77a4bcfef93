/**
 * `refitMatchParams`: Fellegi-Sunter parameters estimated from a release itself (estimate.ts), for
 * `ads matching refit` and bench/match-refit.ts.
 *
 *   u   name and dob levels from random pairs of graph persons (m_person, two independent samples);
 *       email / phone / address agreement from key collisions over all persons: the chance that two
 *       random persons share a key is sum c(c-1) / (N(N-1)) over the keys' person counts c (sampling
 *       would see none of these rare agreements); the ZIP level from the random pairs.
 *   m   EM over the blocked pairs (every candidate of the file path's statement) of a list of rows
 *       drawn from the graph with damage (hardened-set.ts and labelled-set.ts, half each), labels not used.
 *   tf  first- and last-name shares of the most common values.
 *   logistic  Platt fit of p(true | weight) on each list row's reportable candidate (fit.ts), and the I
 *       threshold (chooseIThreshold): the steps that use the list's labels (which graph person a row was
 *       drawn from, or none for its absent people).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';
import { lit, streamChunks, streamRawChunks } from '../../graph/index.ts';
import { nameVariants } from '../normalize/nickname.ts';
import { normalizeMatchInput } from '../normalize/record.ts';
import { candidateSql, unpackFeatures } from './candidates.ts';
import { compareDob, compareFirst, compareLast } from './compare.ts';
import { countLevels, emEstimate, FIELDS, TF_MAX_UP, tfTable, uFromCounts, weightsFrom, type LevelTable } from './estimate.ts';
import { fitPlatt, reportableCandidate } from './fit.ts';
import { generateHardenedSet } from './hardened-set.ts';
import { generateLabelledSet } from './labelled-set.ts';
import { matchIndexPath } from './index-sidecar.ts';
import type { MatchWarehouse } from './matcher.ts';
import { matchWeight, probability, WEIGHTS, type WeightTable } from './model.ts';
import { MATCH_PARAMS_FORMAT, tfBits, tfLookup, type MatchParams } from './params.ts';
import { shortlist } from './point.ts';
import { stageRows } from './stage.ts';
import { KIND, rowKeySources } from './keys.ts';
import { ADDR, DOB, FIRST, ID, LAST, type Features } from './types.ts';
import { decideRow, type ScoredCandidate } from './levels.ts';

export interface RefitOptions {
  /** Random person pairs for u. */
  randomPairs?: number;
  /** Rows of the damaged list the EM runs on. */
  listRows?: number;
  seed?: number;
  /** Most common names kept in each TF table. */
  tfTop?: number;
  scorer?: MatchParams['scorer'];
  /**
   * Fit the logistic and the I threshold on weights with the name TF adjustment and record `tf_applied`, so the
   * fitted scorer applies it. Default false: measured no better on the hardened set and 2 rows worse on the
   * existing one (docs/decisions/045).
   */
  tf?: boolean;
}

const SIZES = Object.fromEntries(FIELDS.map((f) => [f, WEIGHTS[f].length])) as Record<(typeof FIELDS)[number], number>;
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** Opens the release (as `graph`) and its match index (as `mx`) read-only in an in-memory DuckDB. */
export async function openRelease(releaseFile: string, threads = 2): Promise<MatchWarehouse & { close(): void }> {
  const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await inst.connect();
  await conn.run(`ATTACH ${lit(releaseFile)} AS graph (READ_ONLY)`);
  await conn.run(`ATTACH ${lit(matchIndexPath(releaseFile))} AS mx (READ_ONLY)`);
  return {
    query: async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[],
    stream: (sql, onChunk) => streamChunks(conn, sql, onChunk),
    streamRaw: (sql, onChunk) => streamRawChunks(conn, sql, onChunk),
    close() {
      conn.closeSync();
      inst.closeSync();
    },
  };
}

/** u of every field (see the file comment). */
export async function estimateU(wh: MatchWarehouse, pairs: number, seed: number): Promise<{ u: LevelTable; n: number; sampled: number }> {
  const n = Number((await wh.query('SELECT count(*) AS n FROM mx.m_person'))[0]!.n);
  const cols = `person_key, first_name, last_name, nickname, strftime(dob, '%Y-%m-%d') AS dob, zip5`;
  const sample = (s: number) => `(SELECT ${cols} FROM mx.m_person USING SAMPLE reservoir(${pairs} ROWS) REPEATABLE (${s}))`;
  const rows = await wh.query(`SELECT a.*, b.person_key AS b_key, b.first_name AS b_first, b.last_name AS b_last, b.nickname AS b_nick,
      b.dob AS b_dob, b.zip5 AS b_zip FROM (SELECT *, row_number() OVER () AS i FROM ${sample(seed)}) a
      JOIN (SELECT *, row_number() OVER () AS i FROM ${sample(seed + 1)}) b USING (i) WHERE a.person_key <> b.person_key`);
  const vectors: Features[] = [];
  let initialAgree = 0;
  for (const r of rows) {
    const first = str(r.first_name);
    vectors.push({
      email: ID.disagree,
      phone: ID.disagree,
      swapped: false,
      first: compareFirst(first, str(r.b_first), first ? nameVariants(first) : [], str(r.b_nick)),
      last: compareLast(str(r.last_name), str(r.b_last)),
      dob: compareDob(str(r.dob), str(r.b_dob)),
      address: r.zip5 !== null && r.zip5 === r.b_zip ? ADDR.zip : ADDR.disagree,
    });
    if (first && str(r.b_first)?.[0] === first[0]) initialAgree++;
  }
  const counts = countLevels(vectors, SIZES);
  // An initial is an input-side level (graph names are whole): counted as first letters agreeing.
  counts.first[FIRST.initial] = initialAgree * (counts.first.slice(1).reduce((a, b) => a + b, 0) / Math.max(1, rows.length));
  counts.first[FIRST.disagree] = Math.max(0, counts.first[FIRST.disagree]! - counts.first[FIRST.initial]!);
  const u = uFromCounts(counts);
  // A partial input dob (record.ts dobPartial) is an input-side level, like an initial: the chance that a random
  // person was born in the same year and month, or the same year.
  const dobs = rows.map((r) => [str(r.dob), str(r.b_dob)] as const).filter(([a, b]) => a && b) as [string, string][];
  const shareOf = (n: number) => Math.max(1, dobs.filter(([a, b]) => a.slice(0, n) === b.slice(0, n)).length) / Math.max(1, dobs.length);
  // (Taken out of disagree, as the initial is out of the first name's, so u stays a distribution.)
  const counted = u.dob[DOB.month]! + u.dob[DOB.year]!;
  u.dob[DOB.month] = shareOf(7);
  u.dob[DOB.year] = shareOf(4);
  u.dob[DOB.disagree] = u.dob[DOB.disagree]! + counted - u.dob[DOB.month]! - u.dob[DOB.year]!;
  // Key collisions over all persons (email, phone, address, email local part; address history below).
  const pairsAll = n * (n - 1);
  const coll = await wh.query(`WITH c AS (SELECT k, kind, count(DISTINCT person_key) AS c FROM mx.m_key
      WHERE kind IN (${KIND.email}, ${KIND.phone}, ${KIND.address}, ${KIND.emailLocal}) GROUP BY k, kind)
    SELECT kind, sum(c * (c - 1))::DOUBLE AS s FROM c GROUP BY kind`);
  const share = (kind: number) => Number(coll.find((x) => Number(x.kind) === kind)?.s ?? 0) / pairsAll;
  const unit =
    Number(
      (
        await wh.query(`SELECT coalesce(sum(c * (c - 1)), 0)::DOUBLE AS s FROM
    (SELECT k, unit, count(DISTINCT person_key) AS c FROM mx.m_key WHERE kind = 3 GROUP BY k, unit)`)
      )[0]!.s,
    ) / pairsAll;
  const hist =
    Number(
      (
        await wh.query(`SELECT coalesce(sum(a.c * b.c), 0)::DOUBLE AS s FROM
    (SELECT k, count(DISTINCT person_key) AS c FROM mx.m_key WHERE kind = 3 GROUP BY k) a
    JOIN (SELECT k, count(DISTINCT person_key) AS c FROM mx.m_key WHERE kind = 4 GROUP BY k) b USING (k)`)
      )[0]!.s,
    ) / pairsAll;
  const floor = 1 / pairsAll;
  const id = (kind: number) => {
    const a = Math.max(floor, share(kind));
    return [1, a, 1 - a];
  };
  // The near email of two random persons: a shared local part at different providers (the `el:` blocks, which
  // leave out blocks of more than COMMON_BLOCK_MAX persons; a one-typo pair under one full name is rarer still).
  const email = id(KIND.email);
  const near = Math.max(floor, share(KIND.emailLocal));
  u.email = [1, email[1]!, email[2]! - near, near];
  u.phone = id(2);
  const street = Math.max(floor, share(3) - unit);
  const zip = u.address[ADDR.zip]!;
  // The house level: two persons whose current house number and ZIP agree on different streets (the pairs at one
  // street address are the street level's).
  const sameHouse =
    Number(
      (
        await wh.query(`SELECT coalesce(sum(c * (c - 1)), 0)::DOUBLE AS s FROM
    (SELECT zip5, house, count(*) AS c FROM mx.m_person WHERE house IS NOT NULL GROUP BY zip5, house)`)
      )[0]!.s,
    ) / pairsAll;
  const house = Math.max(floor, sameHouse - share(3));
  const addr = [1, Math.max(floor, unit), street, Math.max(floor, hist), zip];
  u.address = [...addr, 1 - addr.slice(1).reduce((a, b) => a + b, 0) - house, house];
  return { u, n, sampled: rows.length };
}

/** Every blocked pair of a damaged list drawn from the graph, grouped per row (best weight first), with the row's true person. */
export async function blockedPairs(
  wh: MatchWarehouse,
  rows: number,
  seed: number,
): Promise<{ byRow: ScoredCandidate[][]; truth: (bigint | null)[]; names: { first: string | null; last: string | null }[] }> {
  // Both damage models of the project: the hardened CRM-export set and the labelled set (whose absent
  // people share a first name and dob with a graph person), half each.
  const half = Math.ceil(rows / 2);
  const set: { record: Record<string, unknown>; personKey: bigint | null }[] = [
    ...(await generateHardenedSet(wh, 'graph', half, seed)),
    ...(await generateLabelledSet(wh, 'graph', rows - half, seed + 1)),
  ];
  const normalized = set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 }));
  // Every block: the fit reads every blocked pair, those no decision can use included.
  const staged = stageRows(normalized, rowKeySources);
  const byRow: ScoredCandidate[][] = set.map(() => []);
  try {
    await wh.stream(candidateSql({ rowSql: staged.rowSql, keySql: staged.keySql, mx: 'mx' }), (c, k) => {
      for (let i = 0; i < k; i++) {
        const features = unpackFeatures(Number(c[4]![i]));
        byRow[Number(c[0]![i])]!.push({
          personKey: BigInt(c[1]![i] as bigint),
          householdKey: null,
          hhRef: null,
          features,
          weight: 0,
          probability: 0,
        });
      }
    });
  } finally {
    staged.cleanup();
  }
  return { byRow, truth: set.map((s) => s.personKey), names: normalized.map((n) => ({ first: n.name.first, last: n.name.last })) };
}

/** The initial m of the EM: the priors' weights turned back into m = u * 2^w, normalized. */
function priorM(u: LevelTable, w: WeightTable): LevelTable {
  const m = {} as LevelTable;
  for (const f of FIELDS) {
    const raw = u[f].map((uv, l) => (l === 0 ? 0 : uv * 2 ** w[f][l]!));
    const total = raw.reduce((a, b) => a + b, 0);
    m[f] = raw.map((v, l) => (l === 0 ? 1 : v / total));
  }
  return m;
}

/**
 * EM sessions per blocking rule (Splink's way): pairs agreeing on the rule's fields, those fields
 * fixed. "email": email agrees -> m of phone, names, dob, address. "dob": exact dob (its blocks carry a
 * name, so the names are fixed too) -> m of email, phone, address. Each field's m is the pair-weighted
 * mean over the sessions that estimated it; lambda is the pair-weighted mean of the sessions'.
 */
export function emSessions(
  vectors: readonly Features[],
  u: LevelTable,
): { m: LevelTable; lambda: number; iterations: number; converged: boolean } {
  const sessions: { where: (f: Features) => boolean; fixed: (typeof FIELDS)[number][] }[] = [
    { where: (f) => f.email === ID.agree, fixed: ['email'] },
    { where: (f) => f.dob === DOB.exact, fixed: ['dob', 'first', 'last'] },
  ];
  const m0 = priorM(u, WEIGHTS);
  const sum = Object.fromEntries(FIELDS.map((f) => [f, m0[f].map(() => 0)])) as LevelTable;
  const mass = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<(typeof FIELDS)[number], number>;
  let lambda = 0,
    pairs = 0,
    iterations = 0,
    converged = true;
  for (const s of sessions) {
    const vs = vectors.filter(s.where);
    if (vs.length === 0) continue;
    const r = emEstimate(vs, u, m0, 0.5, { fixed: s.fixed });
    iterations = Math.max(iterations, r.iterations);
    converged &&= r.converged;
    lambda += r.lambda * vs.length;
    pairs += vs.length;
    for (const f of FIELDS) {
      if (s.fixed.includes(f)) continue;
      r.m[f].forEach((v, l) => {
        sum[f][l]! += v * vs.length;
      });
      mass[f] += vs.length;
    }
  }
  const m = Object.fromEntries(FIELDS.map((f) => [f, mass[f] ? sum[f].map((v, l) => (l === 0 ? 1 : v / mass[f])) : m0[f]])) as LevelTable;
  return { m, lambda: pairs ? lambda / pairs : 0, iterations, converged };
}

/** What the fitted I threshold must keep on the refit list (the bars, with margin). */
export const I_TARGET = { precision: 0.999, absent: 0 };

/**
 * The lowest weight (a 0.25 grid from `floor` to 60) at which the rows' decisions at I keep precision >=
 * I_TARGET.precision and absent people at I <= I_TARGET.absent of the absent rows; returned as the
 * calibrated probability at that weight, with the list's precision, recall (of rows drawn from a graph
 * person) and absent share there.
 */
export function chooseIThreshold(
  rows: readonly ScoredCandidate[][],
  truth: readonly (bigint | null)[],
  logistic: { a: number; b: number },
  floor = 10,
): MatchParams['i_threshold'] {
  const allowed = new Set(['I'] as const);
  const present = truth.filter((t) => t !== null).length;
  const absentRows = truth.length - present;
  let best: MatchParams['i_threshold'] | null = null;
  for (let w = 60; w >= floor; w -= 0.25) {
    const p = probability(w, logistic.a, logistic.b);
    let n = 0,
      right = 0,
      absent = 0;
    rows.forEach((cands, r) => {
      const d = decideRow(cands, allowed, 'residential', null, p);
      if (!d) return;
      n++;
      if (truth[r] === null) absent++;
      else if (d.personKey === truth[r]) right++;
    });
    const precision = n ? right / n : 1;
    const absentShare = absentRows ? absent / absentRows : 0;
    if (precision < I_TARGET.precision || absentShare > I_TARGET.absent) break;
    best = { probability: p, weight: w, precision, recall: present ? right / present : 0, absent: absentShare };
  }
  const top = probability(60, logistic.a, logistic.b);
  return best ?? { probability: top, weight: 60, precision: 1, recall: 0, absent: 0 };
}

/**
 * The conflict guard, the lowest weight the I threshold may take: just above the weight of a name that
 * agrees with one of its two parts fuzzy (or a nickname), an exact dob, and email, phone and address all
 * disagreeing. That is the profile of a different person who shares a first name and birthday and a
 * similar surname (the labelled set's absent people reached I this way at weight 14.4); the prior
 * model's I_THRESHOLD excludes the same profile (model.ts). `tfUp`: what the TF adjustment can add to the
 * profile's exact name part (TF_MAX_UP when the scorer applies TF, else 0).
 */
export function conflictGuard(w: LevelTable, tfUp = 0): number {
  // Each profile has one exact name part; with the TF adjustment applied it can weigh up to `tfUp` (TF_MAX_UP)
  // more for a rare name: without that margin two absent people with rare first names reached I (decision 045).
  const name =
    tfUp +
    Math.max(
      w.first[FIRST.exact]! + w.last[LAST.fuzzy]!,
      w.first[FIRST.fuzzy]! + w.last[LAST.exact]!,
      w.first[FIRST.nickname]! + w.last[LAST.exact]!,
    );
  const x = name + w.dob[DOB.exact]! + w.email[ID.disagree]! + w.phone[ID.disagree]! + w.address[ADDR.disagree]!;
  return Math.floor(x * 4) / 4 + 0.25;
}

/** Levels fewer than MIN_LEVEL_PAIRS blocked pairs showed (e.g. a first initial, if the list has none) keep the prior weight. */
export const MIN_LEVEL_PAIRS = 20;

function withPriorWhereUnseen(w: LevelTable, vectors: readonly Features[]): LevelTable {
  const seen = countLevels(vectors, SIZES);
  const out = {} as LevelTable;
  for (const f of FIELDS) out[f] = w[f].map((v, l) => (l > 0 && seen[f][l]! < MIN_LEVEL_PAIRS ? WEIGHTS[f][l]! : v));
  return out;
}

export async function refitMatchParams(releaseFile: string, opts: RefitOptions = {}): Promise<MatchParams> {
  const seed = opts.seed ?? 101;
  const wh = await openRelease(releaseFile);
  try {
    const { u, n, sampled } = await estimateU(wh, opts.randomPairs ?? 200_000, seed);
    const { byRow, truth, names } = await blockedPairs(wh, opts.listRows ?? 20_000, seed);
    const vectors = byRow.flat().map((c) => c.features);
    const em = emSessions(vectors, u);
    const weights = withPriorWhereUnseen(weightsFrom(em.m, u), vectors);
    // Term frequencies of names.
    const tf = async (col: string) =>
      tfTable(
        (
          await wh.query(`SELECT ${col} AS value, count(*) AS count FROM mx.m_person
      WHERE ${col} IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${opts.tfTop ?? 2000}`)
        ).map((r) => ({ value: String(r.value), count: Number(r.count) })),
        n,
        opts.tfTop ?? 2000,
      );
    const first = await tf('first_name');
    const last = await tf('last_name');
    // Logistic on each row's reportable candidate (the one whose confidence the engine reports), scored with
    // the fitted weights. (Fitting on every shortlisted candidate instead steepens the curve: I at p >= 0.999
    // then needs weight 38 and hardened I recall fell to 0.68; docs/decisions/045.)
    const xs: number[] = [];
    const ys: number[] = [];
    // With TF (opts.tf), each candidate weighs what the fitted scorer will give it (params.ts scoringOf).
    const tfOn = opts.tf ?? false;
    const tfFirst = tfLookup(first, u.first[FIRST.exact]!);
    const tfLast = tfLookup(last, u.last[LAST.exact]!);
    const weigh = (f: Features, r: number) =>
      matchWeight(f, weights as WeightTable) + (tfOn ? tfBits(f, names[r]!.first, names[r]!.last, tfFirst, tfLast) : 0);
    const sorted = byRow.map((cands, r) =>
      shortlist(cands.map((c) => ({ ...c, weight: weigh(c.features, r) }))).sort(
        (a, b) => b.weight - a.weight || (a.personKey < b.personKey ? -1 : 1),
      ),
    );
    sorted.forEach((cands, r) => {
      const c = reportableCandidate(cands);
      if (!c) return;
      xs.push(c.weight);
      ys.push(c.personKey === truth[r] ? 1 : 0);
    });
    const fit = fitPlatt(xs, ys);
    const logistic = { a: Math.round(fit.a * 1e4) / 1e4, b: Math.round(fit.b * 1e4) / 1e4 };
    const iThreshold = chooseIThreshold(
      sorted.map((cands) => cands.map((c) => ({ ...c, probability: probability(c.weight, logistic.a, logistic.b) }))),
      truth,
      logistic,
      Math.max(10, conflictGuard(weights, tfOn ? TF_MAX_UP : 0)),
    );
    return {
      format: MATCH_PARAMS_FORMAT,
      release: path.basename(releaseFile),
      fitted_at: new Date().toISOString(),
      scorer: opts.scorer ?? 'fitted',
      sample: { seed, persons: n, random_pairs: sampled, list_rows: byRow.length, blocked_pairs: vectors.length },
      u,
      m: em.m,
      lambda: em.lambda,
      em: { iterations: em.iterations, converged: em.converged },
      weights,
      tf: { first, last, u_exact: { first: u.first[FIRST.exact]!, last: u.last[LAST.exact]! } },
      tf_applied: tfOn,
      logistic: { ...logistic, pairs: xs.length, positives: ys.filter((y) => y === 1).length },
      i_threshold: iThreshold,
    };
  } finally {
    wh.close();
  }
}
