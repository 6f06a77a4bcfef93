/**
 * Candidates that can take part in no decision are dropped before the shortlist (levels.ts canQualify; in SQL on
 * the file path, candidates.ts decidableSql). Proven here: over every combination of feature levels, a candidate
 * canQualify rejects never changes decideRow, whatever its weight, the other candidates, the allowed levels and the
 * spatial anchor; and the SQL predicate answers exactly what canQualify answers for every packed value.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { decidableSql, nonNamePack, packFeatures, supportableSql, unpackFeatures } from '../../../src/identity/matcher/candidates.ts';
import { canQualify, decideRow, type ScoredCandidate, type SpatialAnchor } from '../../../src/identity/matcher/levels.ts';
import { ADDR, DOB, EMAIL, FIRST, ID, LAST, MATCH_LEVELS, type Features, type MatchLevel } from '../../../src/identity/matcher/types.ts';

/** Every valid combination of feature levels (4 x 3 x 7 x 6 x 8 x 7 x 2 = 112,896). */
function everyFeatures(): Features[] {
  const out: Features[] = [];
  for (const email of Object.values(EMAIL))
    for (const phone of Object.values(ID))
      for (const first of Object.values(FIRST)) {
        for (const last of Object.values(LAST))
          for (const dob of Object.values(DOB))
            for (const address of Object.values(ADDR)) {
              for (const swapped of [false, true]) out.push({ email, phone, first, last, dob, address, swapped });
            }
      }
  return out;
}

let seed = 11;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;

describe('canQualify', () => {
  const all = everyFeatures();
  const can = all.filter(canQualify);
  const cannot = all.filter((f) => !canQualify(f));

  it('splits the feature space: an agreeing email or a current residence can, strangers who share only a dob or a ZIP cannot', () => {
    expect(can.length).toBeGreaterThan(1000);
    expect(cannot.length).toBeGreaterThan(10_000);
    const none: Features = {
      email: ID.missing,
      phone: ID.missing,
      first: FIRST.missing,
      last: LAST.missing,
      dob: DOB.missing,
      address: ADDR.missing,
      swapped: false,
    };
    expect(canQualify({ ...none, email: ID.agree, first: FIRST.disagree, last: LAST.disagree })).toBe(true);
    expect(canQualify({ ...none, address: ADDR.street })).toBe(true);
    expect(canQualify({ ...none, first: FIRST.exact, last: LAST.exact, dob: DOB.exact })).toBe(true);
    expect(canQualify({ ...none, first: FIRST.exact, last: LAST.exact, dob: DOB.digit, address: ADDR.zip })).toBe(true); // name_partial_dob_zip
    expect(canQualify({ ...none, first: FIRST.disagree, last: LAST.exact, dob: DOB.exact, address: ADDR.zip })).toBe(false);
    expect(canQualify({ ...none, first: FIRST.exact, last: LAST.exact, address: ADDR.zip })).toBe(false); // name + ZIP alone
    expect(canQualify({ ...none, first: FIRST.exact, last: LAST.disagree, dob: DOB.exact, address: ADDR.history })).toBe(false);
  });

  it('a candidate it rejects never changes decideRow (5,000 random rows over the whole feature space)', () => {
    const levelSets: MatchLevel[][] = [[...MATCH_LEVELS], ['I'], ['H'], ['D'], ['A'], ['S'], ['I', 'D'], ['H', 'A', 'S']];
    const anchors: (SpatialAnchor | null)[] = [null, { resPerson: 900n, resHousehold: 90n, workPerson: 901n, workHousehold: 91n }];
    let changedInputs = 0;
    for (let row = 0; row < 5000; row++) {
      const n = 1 + Math.floor(rnd() * 8);
      const cands: ScoredCandidate[] = Array.from({ length: n }, () => {
        // Half the candidates drawn from those canQualify rejects, so most rows mix both kinds.
        const features = rnd() < 0.5 ? pick(cannot) : pick(can);
        const weight = Math.round((rnd() * 40 - 15) * 4) / 4;
        const probability = 1 / (1 + Math.exp(-(weight - 8) / 2));
        const household = rnd() < 0.8 ? BigInt(1 + Math.floor(rnd() * 3)) : null;
        return {
          personKey: BigInt(10 + Math.floor(rnd() * 6)),
          householdKey: household,
          hhRef: household === null ? null : household * 100n,
          features,
          weight,
          probability,
        };
      }).sort((a, b) => b.weight - a.weight || (a.personKey < b.personKey ? -1 : a.personKey > b.personKey ? 1 : 0));
      const kept = cands.filter((c) => canQualify(c.features));
      if (kept.length !== cands.length) changedInputs++;
      const allowed = new Set(pick(levelSets));
      const anchor = pick(anchors);
      for (const mode of ['residential', 'work', 'auto'] as const) {
        expect(
          decideRow(kept, allowed, mode, anchor, 0.93),
          JSON.stringify(cands, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
        ).toEqual(decideRow(cands, allowed, mode, anchor, 0.93));
      }
    }
    expect(changedInputs).toBeGreaterThan(2500);
  });

  it('supportableSql (before names are compared) keeps every candidate canQualify accepts and drops name + ZIP alone', async () => {
    const db = await DuckDBInstance.create(':memory:');
    try {
      const c = await db.connect();
      const rows = (
        await c.runAndReadAll(`SELECT f_email + 8 * f_phone + 4096 * f_dob + 32768 * f_address AS v
        FROM (SELECT unnest(range(8)) AS f_email) CROSS JOIN (SELECT unnest(range(8)) AS f_phone) CROSS JOIN (SELECT unnest(range(8)) AS f_dob)
        CROSS JOIN (SELECT unnest(range(8)) AS f_address) WHERE ${supportableSql()}`)
      ).getRowObjectsJS();
      const kept = new Set(rows.map((r) => Number(r.v)));
      for (const f of can) expect(kept.has(nonNamePack(f)), JSON.stringify(f)).toBe(true);
      const nameZipOnly = { email: ID.missing, phone: ID.missing, dob: DOB.missing, address: ADDR.zip };
      expect(kept.has(nonNamePack(nameZipOnly))).toBe(false);
      expect(kept.has(nonNamePack({ ...nameZipOnly, dob: DOB.disagree, address: ADDR.disagree }))).toBe(false);
      expect(kept.has(nonNamePack({ ...nameZipOnly, dob: DOB.exact }))).toBe(true);
      // Exactly the non-name values some names make decidable: nothing kept that no names could use.
      expect(kept).toEqual(new Set(can.map(nonNamePack)));
    } finally {
      db.closeSync();
    }
  });

  it('decidableSql is canQualify on every packed value, and packFeatures inverts unpackFeatures', async () => {
    const db = await DuckDBInstance.create(':memory:');
    try {
      const c = await db.connect();
      const rows = (await c.runAndReadAll(`SELECT fp FROM range(${1 << 19}) t(fp) WHERE ${decidableSql('fp')}`)).getRowObjectsJS();
      const bySql = new Set(rows.map((r) => Number(r.fp)));
      for (const f of all) {
        const fp = packFeatures(f);
        expect(unpackFeatures(fp)).toEqual(f);
        expect(bySql.has(fp), JSON.stringify(f)).toBe(canQualify(f));
      }
    } finally {
      db.closeSync();
    }
  });
});
