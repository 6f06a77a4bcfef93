/**
 * The discovery table of a release: `discovery_persons`, the persons without their identity columns,
 * sorted by geography, plus one `breakdown_key` per person. Discovery counts, lookups and segment and
 * audience membership scan it; the match index (and through it enrichment) is built from `persons`,
 * which stays in key order.
 *
 * Why a second copy (about a fifth of the release file):
 * - Sorted by state, city, ZIP, DuckDB's zone maps skip whole row groups for geographic conditions and
 *   long runs compress to near-constant vectors: at 10M persons `state = 'TX'` drops from 30 ms to
 *   2.5 ms and a two-group OR of state/city and age from 117 ms to 23 ms (docs/benchmarks.md).
 *   `persons` keeps key order for the lookups by key that build and use the match index.
 * - The default breakdowns (gender, age band, income band, state) become ONE integer GROUP BY: the key
 *   packs the four dimension codes (mixed radix, code 0 = NULL), the codes of this release are in
 *   `breakdown_codes`, and the discovery query decodes them in the same statement. Four string
 *   GROUPING SETS cost ~75 ms at 10M; the integer group costs ~20-30 ms.
 * - Discovery never needs names, addresses or dates of birth, so they are simply not there.
 *
 * Every release producer gets it from buildRelease, after its own tables are filled.
 */

/** Persons columns that identify someone (PII in the catalog) or only serve matching: not copied. */
export const IDENTITY_COLUMNS = [
  'household_key',
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'nickname',
  'dob',
  'address_1',
  'address_2',
  'work_address_1',
  'work_address_2',
  'lat',
  'lon',
] as const;

export const DISCOVERY_TABLE = 'discovery_persons';
export const BREAKDOWN_CODES_TABLE = 'breakdown_codes';

/** Age bands of the default breakdowns: label and inclusive bounds in whole years (the CASE below). */
export const AGE_BANDS: readonly { label: string; lo: number; hi: number }[] = [
  { label: 'under_18', lo: -Infinity, hi: 17 },
  { label: '18_24', lo: 18, hi: 24 },
  { label: '25_34', lo: 25, hi: 34 },
  { label: '35_44', lo: 35, hi: 44 },
  { label: '45_54', lo: 45, hi: 54 },
  { label: '55_64', lo: 55, hi: 64 },
  { label: '65_plus', lo: 65, hi: Infinity },
];

/**
 * The default breakdowns, in key order; `expr(q)` is SQL over persons columns qualified by `q`; `field`
 * is the catalog field a bucket's value is a value of (`age_band`: a band of `age`, AGE_BANDS).
 */
export const BREAKDOWN_DIMENSIONS = [
  { name: 'gender', field: 'gender', expr: (q: string) => `${q}gender` },
  {
    name: 'age_band',
    field: 'age',
    expr: (q: string) => `CASE WHEN ${q}age IS NULL THEN NULL ${AGE_BANDS.slice(0, -1)
      .map((b) => `WHEN ${q}age < ${b.hi + 1} THEN '${b.label}'`)
      .join(' ')}
      ELSE '${AGE_BANDS[AGE_BANDS.length - 1]!.label}' END`,
  },
  { name: 'income_band', field: 'income_band', expr: (q: string) => `${q}income_band` },
  { name: 'state', field: 'state', expr: (q: string) => `${q}state` },
] as const;

export type BreakdownName = (typeof BREAKDOWN_DIMENSIONS)[number]['name'];

interface Writer {
  run(sql: string): Promise<void>;
  scalar<T = unknown>(sql: string): Promise<T>;
}

/**
 * Creates `breakdown_codes (dimension, code, value, stride, radix)` and `discovery_persons` from the
 * filled `persons` table. A person's code for dimension d is `(breakdown_key // stride) % radix`.
 */
export async function buildDiscoveryTable(w: Writer): Promise<void> {
  await w.run(
    `CREATE TEMP TABLE codes AS ${BREAKDOWN_DIMENSIONS.map(
      (d) => `
    SELECT '${d.name}' AS dimension, value, row_number() OVER (ORDER BY value)::BIGINT AS code
    FROM (SELECT DISTINCT ${d.expr('')} AS value FROM persons WHERE ${d.expr('')} IS NOT NULL)`,
    ).join(' UNION ALL ')}`,
  );

  const radix: number[] = [];
  for (const d of BREAKDOWN_DIMENSIONS) {
    radix.push(Number(await w.scalar<bigint>(`SELECT count(*) + 1 FROM codes WHERE dimension = '${d.name}'`)));
  }
  const stride = radix.map((_, i) => radix.slice(i + 1).reduce((a, b) => a * b, 1));
  const shape = BREAKDOWN_DIMENSIONS.map((d, i) => `('${d.name}', ${i}, ${stride[i]}, ${radix[i]})`).join(', ');
  await w.run(`
    CREATE TABLE ${BREAKDOWN_CODES_TABLE} AS
    WITH shape(dimension, position, stride, radix) AS (VALUES ${shape})
    SELECT s.dimension, s.position, c.code, c.value, s.stride::BIGINT AS stride, s.radix::BIGINT AS radix
    FROM shape s JOIN (SELECT dimension, code, value FROM codes UNION ALL SELECT dimension, 0, NULL FROM shape) c USING (dimension)
    ORDER BY s.position, c.code`);

  const joins = BREAKDOWN_DIMENSIONS.map(
    (d, i) => `LEFT JOIN codes c${i} ON c${i}.dimension = '${d.name}' AND c${i}.value = (${d.expr('p.')})`,
  );
  const key = BREAKDOWN_DIMENSIONS.map((_, i) => `coalesce(c${i}.code, 0) * ${stride[i]}`).join(' + ');
  await w.run(`
    CREATE TABLE ${DISCOVERY_TABLE} AS
    SELECT p.* EXCLUDE (${IDENTITY_COLUMNS.join(', ')}), (${key})::BIGINT AS breakdown_key
    FROM persons p ${joins.join(' ')}
    ORDER BY p.state, p.city, p.zip5, p.person_key`);
  await w.run('DROP TABLE codes');
}
