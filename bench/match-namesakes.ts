/**
 * Match quality on the namesake set (src/identity/matcher/namesake-set.ts, issue #31): an imported graph of
 * common names in four ZIPs, a third of its people in pairs of namesakes born the same day in different ZIPs,
 * half without a street; rows of first name, last name, US dob and ZIP only, plus absent people.
 *
 *   npx tsx bench/match-namesakes.ts [--persons 5000] [--seed 31]
 *
 * Imports into a temporary folder (`ads graph import`'s code), then matches every row on both paths: the
 * micro-batch path (batches of 100, as POST /v1/match) and the file path (the whole list in one statement).
 * Reports I recall and wrong I per kind of row, and absent people at I.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importGraph } from '../src/graph/import.ts';
import { releaseFilePath } from '../src/graph/releases.ts';
import { buildMatchIndex } from '../src/identity/matcher/index-sidecar.ts';
import { createMatcher } from '../src/identity/matcher/matcher.ts';
import { namesakeSet, type NamesakeRow } from '../src/identity/matcher/namesake-set.ts';
import type { MatchResult } from '../src/identity/matcher/types.ts';
import { normalizeMatchInput } from '../src/identity/normalize/record.ts';
import { openWarehouseOn } from '../test/matching/helpers.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const persons = arg('persons', 5000);
const seed = arg('seed', 31);

const set = namesakeSet(persons, seed);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-namesakes-'));
try {
  const file = path.join(dataDir, 'people.csv');
  fs.writeFileSync(file, set.csv);
  const info = await importGraph({ dataDir, file, mapping: set.mapping, releaseDate: '2026-01-01', threads: 2 });
  const releaseFile = releaseFilePath(dataDir, info);
  const wh = await openWarehouseOn(releaseFile);
  const matcher = createMatcher({ warehouse: wh, indexPath: await buildMatchIndex(releaseFile, { threads: 2 }) });
  const options = { matchLevels: ['I', 'H', 'D', 'S', 'A'] as ('I' | 'H' | 'D' | 'S' | 'A')[], spatialMode: 'auto' as const };
  const rows = set.rows.map((r, i) => normalizeMatchInput(r.record, { position: i + 1 }));
  console.log(
    `${set.persons.length} imported persons in ${new Set(set.persons.map((p) => p.zip)).size} ZIPs, ${set.rows.length} rows (seed ${seed})`,
  );
  const point: MatchResult[] = [];
  for (let i = 0; i < rows.length; i += 100) point.push(...(await matcher.matchBatch(rows.slice(i, i + 100), options)));
  report('micro-batch (100 rows a call)', point);
  report('file path (one statement)', await matcher.matchBatch(rows, options));
  wh.close();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

function report(label: string, res: readonly MatchResult[]): void {
  const ids = set.persons.map((p) => BigInt(p.id));
  const right = (r: MatchResult, s: NamesakeRow) => r.matchLevel === 'I' && s.personId !== null && r.personKey === ids[s.personId - 1];
  console.log(`\n${label}\nkind                 rows   I right   recall   wrong I   other level   none`);
  for (const kind of ['single', 'namesake', 'absent_other_zip', 'absent_other_dob'] as const) {
    const of = set.rows.map((s, i) => [res[i]!, s] as const).filter(([, s]) => s.kind === kind);
    const ok = of.filter(([r, s]) => right(r, s)).length;
    const wrong = of.filter(([r, s]) => r.matchLevel === 'I' && !right(r, s)).length;
    const other = of.filter(([r]) => r.matchLevel !== null && r.matchLevel !== 'I').length;
    const none = of.filter(([r]) => r.matchLevel === null).length;
    const recall = kind.startsWith('absent') ? '     -' : (ok / Math.max(1, of.length)).toFixed(4);
    console.log(
      `${kind.padEnd(18)} ${String(of.length).padStart(6)} ${String(ok).padStart(9)}   ${recall} ${String(wrong).padStart(9)} ${String(other).padStart(13)} ${String(none).padStart(6)}`,
    );
  }
}
