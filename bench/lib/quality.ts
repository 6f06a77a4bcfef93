/**
 * The match-quality report of the identity issue, for any path that produced per-row answers
 * (matchBatch in bench/match-quality.ts, the file path in bench/file-match.ts --quality): per level
 * precision / recall / F1, I precision and recall over rows with person-level evidence, absent people
 * matched at I, a per-scenario table and the confidence calibration.
 */
import type { LabelledRow } from '../../src/identity/matcher/labelled-set.ts';

export interface Answer {
  matchLevel: string | null;
  matchType: string | null;
  matchConfidence: number | null;
  personKey: bigint | null;
  householdKey: bigint | null;
}

/** Rows that carry person-level evidence (name plus a second identifier): the I recall denominator. */
const I_ELIGIBLE = new Set([
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

/** I and D answer a person; H, A and S a household. */
export const correct = (r: Answer, s: LabelledRow) =>
  s.personKey !== null && (r.matchLevel === 'I' || r.matchLevel === 'D' ? r.personKey === s.personKey : r.householdKey === s.householdKey);

export function reportQuality(res: readonly Answer[], set: readonly LabelledRow[], log: (line: string) => void = console.log) {
  const pairs = res.map((r, i) => [r, set[i]!] as const);
  const present = set.filter((s) => s.personKey !== null).length;
  log('\nlevel  returned  correct  precision  recall(present)  F1');
  for (const level of ['I', 'H', 'D', 'A', 'S'] as const) {
    const got = pairs.filter(([r]) => r.matchLevel === level);
    const ok = got.filter(([r, s]) => correct(r, s)).length;
    const prec = got.length ? ok / got.length : 0;
    const rec = ok / present;
    log(
      `${level}      ${String(got.length).padStart(7)}  ${String(ok).padStart(7)}  ${prec.toFixed(4).padStart(9)}  ${rec.toFixed(4).padStart(15)}  ${(prec + rec ? (2 * prec * rec) / (prec + rec) : 0).toFixed(4)}`,
    );
  }
  const elig = pairs.filter(([, s]) => I_ELIGIBLE.has(s.scenario));
  const iOk = elig.filter(([r, s]) => r.matchLevel === 'I' && correct(r, s)).length;
  const iAll = pairs.filter(([r]) => r.matchLevel === 'I');
  const iPrec = iAll.filter(([r, s]) => correct(r, s)).length / Math.max(1, iAll.length);
  log(
    `\nI precision ${iPrec.toFixed(4)}; I recall over rows with person-level evidence ${(iOk / elig.length).toFixed(4)} (${iOk}/${elig.length})`,
  );
  const absent = pairs.filter(([, s]) => s.personKey === null);
  const absentI = absent.filter(([r]) => r.matchLevel === 'I').length;
  log(`absent people matched at I: ${absentI}/${absent.length} (${((100 * absentI) / Math.max(1, absent.length)).toFixed(2)}%)`);

  log('\nscenario          rows   I ok/I   H ok/H   D ok/D   A ok/A   S   none');
  for (const sc of [...new Set(set.map((s) => s.scenario))].sort()) {
    const xs = pairs.filter(([, s]) => s.scenario === sc);
    const cell = (l: string) => {
      const g = xs.filter(([r]) => r.matchLevel === l);
      return `${g.filter(([r, s]) => correct(r, s)).length}/${g.length}`.padStart(8);
    };
    log(
      `${sc.padEnd(16)} ${String(xs.length).padStart(5)} ${cell('I')} ${cell('H')} ${cell('D')} ${cell('A')} ${String(xs.filter(([r]) => r.matchLevel === 'S').length).padStart(4)} ${String(xs.filter(([r]) => r.matchLevel === null).length).padStart(6)}`,
    );
  }

  log('\ncalibration (I and D rows): predicted p bin -> observed accuracy');
  const bins = [0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0001];
  for (let b = 0; b < bins.length - 1; b++) {
    const xs = pairs.filter(
      ([r]) => (r.matchLevel === 'I' || r.matchLevel === 'D') && r.matchConfidence! >= bins[b]! && r.matchConfidence! < bins[b + 1]!,
    );
    if (!xs.length) continue;
    const meanP = xs.reduce((a, [r]) => a + r.matchConfidence!, 0) / xs.length;
    const acc = xs.filter(([r, s]) => correct(r, s)).length / xs.length;
    log(
      `  [${bins[b]!.toFixed(3)}, ${Math.min(1, bins[b + 1]!).toFixed(3)})  n=${String(xs.length).padStart(6)}  mean p=${meanP.toFixed(4)}  observed=${acc.toFixed(4)}`,
    );
  }
  for (const type of ['household', 'address', 'spatial_residential'] as const) {
    const xs = pairs.filter(([r]) => r.matchType === type);
    if (xs.length)
      log(
        `observed precision of ${type}: ${(xs.filter(([r, s]) => correct(r, s)).length / xs.length).toFixed(4)} (n=${xs.length}; LEVEL_CONFIDENCE)`,
      );
  }
}
