/**
 * Match quality on a labelled set drawn from a generated graph (labelled-set.ts: typos, nicknames,
 * swapped names, missing fields, moved people with their old address, unit variants, phone
 * formats, email case/dots/tags, and people absent from the graph).
 *
 *   npx tsx bench/match-quality.ts [--persons 200000] [--rows 40000] [--seed 11]
 *   npx tsx bench/match-quality.ts --fit      # refit LOGIT_A/LOGIT_B on one random half of the rows, report
 *                                             # levels + calibration of hand-set vs fitted on the other half
 *
 * The graph goes to .bench/match-data (reused while its size matches). Reports precision / recall /
 * F1 per level, a per-scenario table, the confidence calibration table and throughput.
 */
import path from 'node:path';
import { generateGraph } from '../src/graph/generate.ts';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';
import { candidateSql, unpackFeatures } from '../src/identity/matcher/candidates.ts';
import { calibration, fitPlatt, formatCalibration, reportableCandidate } from '../src/identity/matcher/fit.ts';
import { generateLabelledSet, rng, type LabelledRow } from '../src/identity/matcher/labelled-set.ts';
import { decideRow, type ScoredCandidate } from '../src/identity/matcher/levels.ts';
import { shortlist } from '../src/identity/matcher/point.ts';
import { buildMatchIndex } from '../src/identity/matcher/index-sidecar.ts';
import { createMatcher } from '../src/identity/matcher/matcher.ts';
import { I_THRESHOLD, LOGIT_A, LOGIT_B, matchWeight, probability } from '../src/identity/matcher/model.ts';
import { stageRows } from '../src/identity/matcher/stage.ts';
import type { MatchLevel, MatchResult } from '../src/identity/matcher/types.ts';
import { normalizeMatchInput } from '../src/identity/normalize/record.ts';
import { openWarehouseOn } from '../test/matching/helpers.ts';
import { reportQuality } from './lib/quality.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const persons = arg('persons', 200_000);
const nRows = arg('rows', 40_000);
const seed = arg('seed', 11);
const fit = process.argv.includes('--fit');
const dataDir = path.resolve(import.meta.dirname, '../.bench/match-data');

let info = readCurrentRelease(dataDir);
if (!info || info.persons !== persons) {
  console.log(`generating ${persons} persons into ${dataDir} ...`);
  info = await generateGraph({ dataDir, persons, seed: 7, releaseDate: '2025-06-01', threads: 2 });
}
const releaseFile = releaseFilePath(dataDir, info);
let t = performance.now();
const indexPath = await buildMatchIndex(releaseFile, { threads: 2 });
console.log(`match index ready in ${((performance.now() - t) / 1000).toFixed(1)} s: ${path.basename(indexPath)}`);
const wh = await openWarehouseOn(releaseFile);

const set: LabelledRow[] = await generateLabelledSet(wh, 'graph', nRows, seed);
t = performance.now();
const rows = set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 }));
const normMs = performance.now() - t;

if (fit) {
  // Every candidate of every row (the file path's statement), weights from model.ts WEIGHTS.
  await wh.query(`ATTACH '${indexPath}' AS mxfit (READ_ONLY)`);
  const staged = stageRows(rows);
  const byRow = new Map<number, ScoredCandidate[]>();
  for (const r of await wh.query(candidateSql({ rowSql: staged.rowSql, keySql: staged.keySql, mx: 'mxfit' }))) {
    const features = unpackFeatures(Number(r.fp));
    const c: ScoredCandidate = {
      personKey: BigInt(r.person_key as bigint),
      householdKey: r.household_key == null ? null : BigInt(r.household_key as bigint),
      hhRef: r.hh_ref == null ? null : BigInt(r.hh_ref as bigint),
      features,
      weight: matchWeight(features),
      probability: 0,
    };
    const list = byRow.get(Number(r.r));
    if (list) list.push(c);
    else byRow.set(Number(r.r), [c]);
  }
  staged.cleanup();
  const byW = (a: ScoredCandidate, b: ScoredCandidate) =>
    b.weight - a.weight || (a.personKey < b.personKey ? -1 : a.personKey > b.personKey ? 1 : 0);
  for (const [r, cs] of byRow) byRow.set(r, shortlist(cs).sort(byW));
  // Random halves: fit on one, measure on the other.
  const coin = rng(seed * 7919 + 1);
  const half = set.map(() => coin() < 0.5);
  const idx = (train: boolean) => set.map((_, i) => i).filter((i) => half[i] === train);
  const trainIdx = idx(true);
  const testIdx = idx(false);
  // Fitting data: per row, the candidate whose probability the engine can report (fit.ts).
  const xs: number[] = [];
  const ys: number[] = [];
  for (const i of trainIdx) {
    const c = reportableCandidate(byRow.get(i) ?? []);
    if (!c) continue;
    xs.push(c.weight);
    ys.push(c.personKey === set[i]!.personKey ? 1 : 0);
  }
  const fitted = fitPlatt(xs, ys);
  const a = Math.round(fitted.a * 1e4) / 1e4;
  const b = Math.round(fitted.b * 1e4) / 1e4;
  // For comparison: the same fit on every row's top candidate (incl. name + ZIP only rows).
  const xt: number[] = [];
  const yt: number[] = [];
  for (const i of trainIdx) {
    const c = byRow.get(i)?.[0];
    if (c) {
      xt.push(c.weight);
      yt.push(c.personKey === set[i]!.personKey ? 1 : 0);
    }
  }
  const top = fitPlatt(xt, yt);
  console.log(
    `train: ${trainIdx.length} rows, ${xs.length} reportable candidates (${ys.filter((y) => y === 1).length} true); test: ${testIdx.length} rows`,
  );
  console.log(`fit on reportable candidates: a=${a} b=${b}; on all top candidates: a=${top.a.toFixed(4)} b=${top.b.toFixed(4)}`);

  const ALLOWED = new Set<MatchLevel>(['I', 'H', 'D', 'A']);
  const iEligibleFit = new Set([
    'clean',
    'typo',
    'nickname',
    'swap',
    'moved',
    'unit_variant',
    'phone_format',
    'email_variant',
    'name_dob',
    'missing_fields',
  ]);
  const evaluate = (label: string, la: number, lb: number, rowsIdx: number[]) => {
    const ps: number[] = [];
    const ok: number[] = [];
    const lv: Record<string, [number, number]> = { I: [0, 0], H: [0, 0], D: [0, 0], A: [0, 0] };
    let absentI = 0,
      absent = 0,
      eligible = 0,
      eligibleI = 0,
      present = 0,
      lowW = 0,
      lowWok = 0;
    // Weight at which the hand-set logistic reached I_THRESHOLD: I rows below it are new with (la, lb).
    const oldIWeight = (Math.log(I_THRESHOLD / (1 - I_THRESHOLD)) - LOGIT_B) / LOGIT_A;
    for (const i of rowsIdx) {
      const s = set[i]!;
      const cands = (byRow.get(i) ?? []).map((c) => ({ ...c, probability: probability(c.weight, la, lb) }));
      const d = decideRow(cands, ALLOWED, 'residential', null);
      const right =
        d !== null &&
        s.personKey !== null &&
        (d.level === 'I' || d.level === 'D' ? d.personKey === s.personKey : d.householdKey === s.householdKey);
      if (s.personKey === null) {
        absent++;
        if (d?.level === 'I') absentI++;
      } else present++;
      if (iEligibleFit.has(s.scenario)) {
        eligible++;
        if (d?.level === 'I' && right) eligibleI++;
      }
      if (!d) continue;
      lv[d.level]![0]++;
      if (right) lv[d.level]![1]++;
      const chosen = cands.find((c) => c.personKey === d.personKey);
      if (d.level === 'I' && chosen && chosen.weight < oldIWeight) {
        lowW++;
        if (right) lowWok++;
        else console.log(`  new I row wrong: ${s.scenario} ${d.type} w=${chosen.weight} ${JSON.stringify(chosen.features)}`);
      }
      if (d.level === 'I' || d.level === 'D') {
        ps.push(Math.round(d.confidence * 1e4) / 1e4);
        ok.push(right ? 1 : 0);
      }
    }
    console.log(`\n== ${label}: a=${la} b=${lb} on ${rowsIdx.length} rows`);
    console.log('level  returned  correct  precision  recall(present)  F1');
    for (const [l, [n, c]] of Object.entries(lv)) {
      const prec = n ? c / n : 0,
        rec = c / present;
      console.log(
        `${l}      ${String(n).padStart(7)}  ${String(c).padStart(7)}  ${prec.toFixed(4).padStart(9)}  ${rec.toFixed(4).padStart(15)}  ${(prec + rec ? (2 * prec * rec) / (prec + rec) : 0).toFixed(4)}`,
      );
    }
    console.log(
      `I precision ${(lv.I![1] / Math.max(1, lv.I![0])).toFixed(4)}; I recall (person-level evidence) ${(eligibleI / eligible).toFixed(4)}; absent at I ${absentI}/${absent}; I rows below weight ${oldIWeight.toFixed(2)}: ${lowWok}/${lowW} right`,
    );
    console.log('calibration (I and D rows):\n' + formatCalibration(calibration(ps, ok)));
  };
  evaluate('hand-set (held-out half)', LOGIT_A, LOGIT_B, testIdx);
  evaluate('fitted (held-out half)', a, b, testIdx);
  evaluate('fitted on all top candidates (held-out half)', Math.round(top.a * 1e4) / 1e4, Math.round(top.b * 1e4) / 1e4, testIdx);
  evaluate('fitted (training half)', a, b, trainIdx);
  console.log(`\nexport const LOGIT_A = ${a};\nexport const LOGIT_B = ${b};`);
  wh.close();
  process.exit(0);
}

const matcher = createMatcher({ warehouse: wh, indexPath });
t = performance.now();
const res: MatchResult[] = await matcher.matchBatch(rows, { matchLevels: ['I', 'H', 'D', 'S', 'A'], spatialMode: 'residential' });
const matchMs = performance.now() - t;

console.log(
  `\n${nRows} rows on ${persons} persons; normalize ${((nRows / normMs) * 1000).toFixed(0)} rows/s, matchBatch ${(matchMs / 1000).toFixed(2)} s = ${((nRows / matchMs) * 1000).toFixed(0)} rows/s`,
);
reportQuality(res, set);
wh.close();
