/**
 * Precomputed draw pools for the generator. Building a string or a 64-bit interest mask per row from
 * constant lists and CASE chains cost microseconds per row (a 100k graph spent ~8 s in the persons
 * stage); instead each pool is built once over a few thousand slots with the expensive expressions, and
 * rows pick a slot with one integer hash and an equality hash join against a small table.
 * Every pool is a pure function of the seed, so generation stays deterministic.
 */
import { lit, litList, type ReleaseWriter } from './duck.ts';
import { personalDomainList, suffixAbbreviations, weightedList } from './reference.ts';
import { EMPLOYER_DOMAIN_WORDS, INTEREST_PROFILES, PURCHASE_BEHAVIOR_PROFILES, STREET_SUFFIX_WEIGHTS } from './vocab.ts';

/** Slots per pool; rows draw `hash(...) % size`. Large enough that repeats look like real coincidences. */
export const POOL = { street: 1 << 16, unit: 1 << 12, domain: 1 << 10, employer: 1 << 14, mask: 1 << 10 } as const;

/**
 * Mask combos: age group (0 <25, 1 25-54, 2 55+) x male x rich x kids, plus 24 = under 13 (no
 * interests) and 25 = 13-15 (interests, no purchase behaviours). `maskCombo` computes it per row.
 */
export const MASK_COMBOS = 26;
export function maskComboSql(age: string, gender: string, rich: string, kids: string): string {
  return `CASE WHEN ${age} < 13 THEN 24 WHEN ${age} < 16 THEN 25 ELSE
    (CASE WHEN ${age} < 25 THEN 0 WHEN ${age} < 55 THEN 1 ELSE 2 END) * 8 + (CASE WHEN ${gender} = 'M' THEN 4 ELSE 0 END)
    + (CASE WHEN coalesce(${rich}, false) THEN 2 ELSE 0 END) + (CASE WHEN coalesce(${kids}, false) THEN 1 ELSE 0 END) END`;
}

/** Sum of bits whose draw falls under the profile probability for the pool row's combo. */
function maskExpr(profiles: Readonly<Record<string, readonly number[]>>, prefix: string): string {
  return Object.entries(profiles)
    .map(([name, [base, young, mid, senior, male, female, rich]], i) => {
      const byte = `((hash(combo, slot, '${prefix}${i >> 3}', seed_) >> ${8 * (i & 7)}) & 255)::DOUBLE / 256.0`;
      const kids = name === 'parenting' || name === 'baby_products' ? ` * CASE WHEN kids_ THEN 3.0 ELSE 0.2 END` : '';
      const p =
        `${base} * CASE age_grp WHEN 0 THEN ${young} WHEN 1 THEN ${mid} ELSE ${senior} END` +
        ` * CASE WHEN male_ THEN ${male} ELSE ${female} END * CASE WHEN rich_ THEN ${rich} ELSE 1.0 END${kids}`;
      return `CASE WHEN ${byte} < ${p} THEN ${(1n << BigInt(i)).toString()}::BIGINT ELSE 0::BIGINT END`;
    })
    .join('\n + ');
}

export async function createPools(w: ReleaseWriter, seed: number, ref: { streetNames: string[]; employerNames: string[] }): Promise<void> {
  const s = `${Math.trunc(seed)}::BIGINT`;
  const abbr = await suffixAbbreviations(w);
  const suffixes = weightedList(STREET_SUFFIX_WEIGHTS.map(([name, wt]) => [abbr.get(name) ?? name, wt] as const));
  const u = (f: string) => `(hash(range, ${lit(f)}, ${s}) >> 11)::DOUBLE / 9007199254740992.0`;
  // DuckDB rebuilds a list literal for every row it is used on (street_pool with inlined lists: 45 us a
  // row), so every list becomes a table joined by index: `pk(list, f)` names the join and the value.
  const lists = new Map<string, readonly string[]>();
  const joins: string[] = [];
  const pk = (list: readonly string[], f: string): string => {
    const name = `pool_list_${f}`;
    lists.set(name, list);
    joins.push(`JOIN ${name} ON ${name}.i = floor(${u(f)} * ${list.length})::BIGINT`);
    return `${name}.v`;
  };
  const from = (n: number): string => {
    const j = joins.splice(0).join(' ');
    return `FROM range(${n}) ${j}`;
  };
  const street = `SELECT range AS slot, CASE WHEN ${u('dir')} < 0.12 THEN ${pk(['N', 'S', 'E', 'W'], 'dd')} || ' ' ELSE '' END
      || ${pk(ref.streetNames, 'st')} || ' ' || ${pk(suffixes, 'sx')} AS line ${from(POOL.street)}`;
  const unit = `SELECT range AS slot, ${pk(['APT', 'APT', 'APT', 'APT', 'APT', 'APT', 'UNIT', 'UNIT', '#', 'STE'], 'ut')} || ' '
      || (1 + floor(${u('un')} * 30)::INT)::VARCHAR || CASE WHEN ${u('ul')} < 0.4 THEN ${pk(['A', 'B', 'C', 'D', 'E', 'F'], 'uv')} ELSE '' END AS line
    ${from(POOL.unit)}`;
  const domain = `SELECT range AS slot, ${pk(personalDomainList(), 'dom')} AS domain ${from(POOL.domain)}`;
  const employer = `SELECT range AS slot, lower(${pk(ref.employerNames, 'emp')}) || ${pk(EMPLOYER_DOMAIN_WORDS, 'empw')} || '.com' AS domain
    ${from(POOL.employer)}`;
  for (const [name, list] of lists) {
    await w.run(`CREATE OR REPLACE TEMP TABLE ${name} AS SELECT unnest(range(${list.length})) AS i, unnest(${litList(list)}) AS v`);
  }
  await w.run(`
    CREATE OR REPLACE TEMP TABLE street_pool AS ${street};
    CREATE OR REPLACE TEMP TABLE unit_pool AS ${unit};
    CREATE OR REPLACE TEMP TABLE domain_pool AS ${domain};
    CREATE OR REPLACE TEMP TABLE employer_pool AS ${employer};
    CREATE OR REPLACE TEMP TABLE mask_pool AS
    WITH c AS (SELECT c.range::INT AS combo, r.range AS slot, ${s} AS seed_,
        (c.range % 24) // 8 AS age_grp, (c.range % 8) >= 4 AS male_, (c.range % 4) >= 2 AS rich_, c.range % 2 = 1 AS kids_
      FROM range(${MASK_COMBOS}) c, range(${POOL.mask}) r)
    SELECT combo, slot,
      CASE WHEN combo = 24 THEN 0::BIGINT ELSE ${maskExpr(INTEREST_PROFILES, 'int')} END AS interests_mask,
      CASE WHEN combo >= 24 THEN 0::BIGINT ELSE ${maskExpr(PURCHASE_BEHAVIOR_PROFILES, 'pb')} END AS purchase_behaviors_mask
    FROM c`);
}
