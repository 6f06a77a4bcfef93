/**
 * Match quality on the hardened labelled set (src/identity/matcher/hardened-set.ts: CRM-export
 * damage, about half the rows without a street) and on made-up people at made-up streets in real
 * ZIPs, through the engine's file path (matchBatch of the whole set = matchStaged).
 *
 *   flock /work/bench.lock npx tsx bench/match-hardened.ts [--persons 50000] [--rows 10000] [--junk 1000] [--seed 23]
 *
 * The graph is .bench/match-data (the one bench/match-quality.ts generates; reused when its size matches).
 * Reports: I precision; I recall over rows the oracle says identify one person; absent people at I;
 * recall per damage kind and per geography; junk rows matched at any level.
 */
import path from 'node:path';
import { generateGraph } from '../src/graph/generate.ts';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';
import { loadZips } from '../src/identity/reference-data.ts';
import { DAMAGE_KINDS, generateHardenedSet, junkRows, type HardenedRow } from '../src/identity/matcher/hardened-set.ts';
import { buildMatchIndex } from '../src/identity/matcher/index-sidecar.ts';
import { createMatcher } from '../src/identity/matcher/matcher.ts';
import type { MatchResult } from '../src/identity/matcher/types.ts';
import { normalizeMatchInput } from '../src/identity/normalize/record.ts';
import { openWarehouseOn } from '../test/matching/helpers.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const persons = arg('persons', 50_000);
const nRows = arg('rows', 10_000);
const nJunk = arg('junk', 1000);
const seed = arg('seed', 23);
const dataDir = path.resolve(import.meta.dirname, '../.bench/match-data');

let info = readCurrentRelease(dataDir);
if (!info || info.persons !== persons) {
  console.log(`generating ${persons} persons into ${dataDir} ...`);
  info = await generateGraph({ dataDir, persons, seed: 7, releaseDate: '2025-06-01', threads: 2 });
}
const releaseFile = releaseFilePath(dataDir, info);
const indexPath = await buildMatchIndex(releaseFile, { threads: 2 });
const wh = await openWarehouseOn(releaseFile);
const matcher = createMatcher({ warehouse: wh, indexPath });
const ALL = { matchLevels: ['I', 'H', 'D', 'S', 'A'] as const, spatialMode: 'auto' as const };

const set: HardenedRow[] = await generateHardenedSet(wh, 'graph', nRows, seed);
const t = performance.now();
const res: MatchResult[] = await matcher.matchBatch(
  set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 })),
  { ...ALL, matchLevels: [...ALL.matchLevels] },
);
const ms = performance.now() - t;

const pairs = res.map((r, i) => [r, set[i]!] as const);
const rightI = (r: MatchResult, s: HardenedRow) => r.matchLevel === 'I' && s.personKey !== null && r.personKey === s.personKey;
const iAll = pairs.filter(([r]) => r.matchLevel === 'I');
const elig = pairs.filter(([, s]) => s.identifies);
const absent = pairs.filter(([, s]) => s.personKey === null);
const pct = (a: number, b: number) => (b ? a / b : 0).toFixed(4);
console.log(
  `${nRows} hardened rows on ${persons} persons (seed ${seed}); normalize + match ${(ms / 1000).toFixed(2)} s = ${Math.round((nRows / ms) * 1000)} rows/s`,
);
console.log(
  `rows identifying one person (oracle): ${elig.length}; absent people: ${absent.length}; other present rows: ${nRows - elig.length - absent.length}`,
);
console.log(`I precision ${pct(iAll.filter(([r, s]) => rightI(r, s)).length, iAll.length)} (${iAll.length} I rows)`);
console.log(
  `I recall over identifying rows ${pct(elig.filter(([r, s]) => rightI(r, s)).length, elig.length)} (${elig.filter(([r, s]) => rightI(r, s)).length}/${elig.length})`,
);
const absentI = absent.filter(([r]) => r.matchLevel === 'I').length;
console.log(
  `absent people matched at I: ${absentI}/${absent.length} (${((100 * absentI) / Math.max(1, absent.length)).toFixed(2)}%); at any level: ${absent.filter(([r]) => r.matchLevel !== null).length}`,
);

console.log('\nrecall at I per damage kind (identifying rows carrying it; a row may carry several)');
console.log('damage            rows  share   I right   recall   wrong I');
const undamaged = elig.filter(([, s]) => s.damage.every((d) => d === 'case_noise'));
const line = (label: string, xs: typeof elig) => {
  const ok = xs.filter(([r, s]) => rightI(r, s)).length;
  const wrong = xs.filter(([r, s]) => r.matchLevel === 'I' && !rightI(r, s)).length;
  console.log(
    `${label.padEnd(16)} ${String(xs.length).padStart(5)}  ${(xs.length / Math.max(1, elig.length)).toFixed(3)}  ${String(ok).padStart(7)}  ${pct(ok, xs.length).padStart(7)}  ${String(wrong).padStart(7)}`,
  );
};
line('(none)', undamaged);
for (const d of DAMAGE_KINDS)
  line(
    d,
    elig.filter(([, s]) => s.damage.includes(d)),
  );
console.log('\nlevels of rows that do not identify one person (name + locality only, or ambiguous truth):');
const other = pairs.filter(([, s]) => s.personKey !== null && !s.identifies);
for (const l of ['I', 'H', 'D', 'A', 'S', null]) {
  const xs = other.filter(([r]) => r.matchLevel === l);
  const ok = xs.filter(([r, s]) => (l === 'I' || l === 'D' ? r.personKey === s.personKey : r.householdKey === s.householdKey)).length;
  console.log(`  ${String(l ?? 'none').padEnd(4)} ${String(xs.length).padStart(6)}  right ${ok}`);
}

const zips = (await wh.query(`SELECT DISTINCT zip5 FROM graph.persons ORDER BY zip5`)).map((z) => String(z.zip5));
const junk = junkRows(zips, nJunk, seed);
const jr = await matcher.matchBatch(
  junk.map((j, i) => normalizeMatchInput(j, { position: i + 1 })),
  { ...ALL, matchLevels: [...ALL.matchLevels] },
);
const byLevel = new Map<string, number>();
for (const r of jr) if (r.matchLevel) byLevel.set(r.matchLevel, (byLevel.get(r.matchLevel) ?? 0) + 1);
console.log(
  `\njunk rows (made-up names and streets in ${zips.length} real ZIPs, no email/phone/dob): ${jr.filter((r) => r.matchLevel).length}/${nJunk} matched ${JSON.stringify(Object.fromEntries(byLevel))}`,
);
// The same rows with the ZIP's city and state instead of the ZIP (a street located by its city, record.ts cityZip5s).
const cityOf = loadZips();
const cityJunk = junk.map(({ zip, ...j }) => ({ ...j, city: cityOf.get(String(zip))?.city, state: cityOf.get(String(zip))?.state }));
const cr = await matcher.matchBatch(
  cityJunk.map((j, i) => normalizeMatchInput(j, { position: i + 1 })),
  { ...ALL, matchLevels: [...ALL.matchLevels] },
);
const cityLevels = new Map<string, number>();
for (const r of cr) if (r.matchLevel) cityLevels.set(r.matchLevel, (cityLevels.get(r.matchLevel) ?? 0) + 1);
console.log(
  `junk rows with city + state instead of the ZIP: ${cr.filter((r) => r.matchLevel).length}/${nJunk} matched ${JSON.stringify(Object.fromEntries(cityLevels))}`,
);
wh.close();
