/**
 * Loads the public reference files (reference/README.md) into TEMP tables of a release writer, shaped
 * for sampling: a weighted list becomes a "bucket" table (bucket number -> value, each value owning a
 * share of buckets proportional to its weight), so drawing from it is one equality hash join.
 */
import path from 'node:path';
import { lit, litList, type ReleaseWriter } from './duck.ts';
import { AREA_CODES, PERSONAL_EMAIL_DOMAINS, STREET_SUFFIX_WEIGHTS, STREET_WORDS } from './vocab.ts';

export const REFERENCE_DIR = path.resolve(import.meta.dirname, '../../reference');
export const refFile = (name: string): string => path.join(REFERENCE_DIR, name);

export const ZIP_BUCKETS = 1 << 17;
export const STATE_ZIP_BUCKETS = 1024;
export const FIRST_NAME_BUCKETS = 4096;
export const SURNAME_BUCKETS = 1 << 20;

/**
 * One integer key for (decade, sex, bucket). Joining first and middle names on (decade, sex, bucket)
 * let the optimizer infer fn.decade = mn.decade and join the two bucket tables to each other first
 * (a 4096 x 4096 product per group: 1M persons took 230 s and 11 GB); one key per draw cannot pair up.
 */
export function firstNameKeySql(decade: string, sex: string, bucket: string): string {
  return `((${decade} - 1880) // 10 * 2 + CASE WHEN ${sex} = 'M' THEN 1 ELSE 0 END)::BIGINT * ${FIRST_NAME_BUCKETS} + ${bucket}`;
}

/** Weighted list -> bucket table. `src` has columns (grp, value..., w); output (grp, bucket, value...). */
function bucketSql(table: string, src: string, valueCols: string, buckets: number, grouped: boolean): string {
  return `CREATE OR REPLACE TEMP TABLE ${table} AS ${bucketSelect(src, valueCols, buckets, grouped)}`;
}

function bucketSelect(src: string, valueCols: string, buckets: number, grouped: boolean): string {
  const grp = grouped ? 'grp' : "''";
  // Value v owns the buckets whose centre (b + 0.5) / N falls in [cum_lo, cum_hi): one unnest of that
  // range per value. (An ASOF join of every bucket against the values did the same in seconds for the
  // 1M surname buckets, on every generation.)
  return `
    WITH s AS (SELECT ${grp} AS grp, ${valueCols}, w FROM (${src}) WHERE w > 0),
    c AS (SELECT *, SUM(w) OVER (PARTITION BY grp ORDER BY w DESC, ${valueCols} ROWS UNBOUNDED PRECEDING) / SUM(w) OVER (PARTITION BY grp) AS cum_hi,
                    (SUM(w) OVER (PARTITION BY grp ORDER BY w DESC, ${valueCols} ROWS UNBOUNDED PRECEDING) - w) / SUM(w) OVER (PARTITION BY grp) AS cum_lo FROM s),
    r AS (SELECT *, greatest(0, ceil(cum_lo * ${buckets} - 0.5))::BIGINT AS b_lo,
                    least(${buckets}, ceil(cum_hi * ${buckets} - 0.5))::BIGINT AS b_hi FROM c)
    SELECT grp, unnest(range(b_lo, b_hi)) AS bucket, ${valueCols
      .split(',')
      .map((c) => c.trim())
      .join(', ')}
    FROM r WHERE b_hi > b_lo`;
}

/** TEMP ref_zips (zip5, city, state, lat, lon, population): all the importer needs. */
export async function loadRefZips(w: ReleaseWriter): Promise<void> {
  await w.run(`
    CREATE OR REPLACE TEMP TABLE ref_zips AS
    SELECT zip5, city, state, CAST(lat AS DOUBLE) AS lat, CAST(lon AS DOUBLE) AS lon,
           CAST(population AS BIGINT) AS population
    FROM read_csv(${lit(refFile('zips.csv'))}, header = true, all_varchar = true)
    WHERE coalesce(city, '') <> '' AND state IN (SELECT unnest(${litList(Object.keys(AREA_CODES))}))`);
}

/** Creates the TEMP reference tables and returns the street-name list used in addresses. */
export async function loadReference(w: ReleaseWriter): Promise<{ streetNames: string[]; employerNames: string[] }> {
  const csv = (f: string) => `read_csv(${lit(refFile(f))}, header = true, all_varchar = true)`;
  await loadRefZips(w);
  const populated = `SELECT state AS grp, zip5, population AS w FROM ref_zips WHERE population > 0`;
  await w.run(bucketSql('zip_buckets', populated, 'zip5', ZIP_BUCKETS, false));
  await w.run(bucketSql('state_zip_buckets', populated, 'zip5', STATE_ZIP_BUCKETS, true));
  await w.run(`
    CREATE OR REPLACE TEMP TABLE first_name_buckets AS
    SELECT *, ${firstNameKeySql('decade', 'sex', 'bucket')} AS k FROM (
    SELECT split_part(grp, ':', 1)::INT AS decade, split_part(grp, ':', 2) AS sex, bucket, first_name
    FROM (${bucketSelect(`SELECT decade || ':' || sex AS grp, upper(name) AS first_name, CAST(count AS BIGINT) AS w FROM ${csv('first_names.csv')}`, 'first_name', FIRST_NAME_BUCKETS, true)}))`);
  await w.run(
    bucketSql(
      'surname_buckets',
      `SELECT name AS last_name, CAST(count AS BIGINT) AS w FROM ${csv('surnames.csv')} WHERE name ~ '^[A-Z]+$'`,
      'last_name',
      SURNAME_BUCKETS,
      false,
    ),
  );
  await w.run(`
    CREATE OR REPLACE TEMP TABLE nickname_lists AS
    SELECT upper(name1) AS first_name, list(upper(name2) ORDER BY name2) AS nicknames
    FROM ${csv('nicknames.csv')} WHERE name2 ~ '^[a-z]+$' GROUP BY 1`);
  await w.run(`
    CREATE OR REPLACE TEMP TABLE area_codes AS
    SELECT state, string_split(codes, ' ') AS codes
    FROM (VALUES ${Object.entries(AREA_CODES)
      .map(([s, c]) => `(${lit(s)}, ${lit(c)})`)
      .join(', ')}) t(state, codes)`);
  // Street names: everyday words plus common surnames (WASHINGTON, LINCOLN, ...), as in real towns.
  const surnames = (await w.conn.runAndReadAll(`SELECT name FROM ${csv('surnames.csv')} WHERE name ~ '^[A-Z]{4,}$' LIMIT 1500`))
    .getRowsJS()
    .map((r) => String(r[0]));
  return { streetNames: [...STREET_WORDS, ...surnames.slice(0, 600)], employerNames: surnames };
}

/** Expands [value, weight] pairs into a 100-entry list so `list[1 + floor(u * 100)]` draws by weight. */
export function weightedList(pairs: ReadonlyArray<readonly [string, number]>, size = 100): string[] {
  const total = pairs.reduce((a, [, w]) => a + w, 0);
  const out: string[] = [];
  let acc = 0;
  for (const [v, wt] of pairs) {
    acc += wt;
    while (out.length < Math.round((acc / total) * size)) out.push(v);
  }
  return out;
}

/** USPS standard abbreviations for the residential suffix names, read from usps_suffixes.csv. */
export async function suffixAbbreviations(w: ReleaseWriter): Promise<Map<string, string>> {
  const rows = (
    await w.conn.runAndReadAll(
      `SELECT DISTINCT name, abbreviation FROM read_csv(${lit(refFile('usps_suffixes.csv'))}, header = true, all_varchar = true)`,
    )
  ).getRowsJS();
  return new Map(rows.map((r) => [String(r[0]), String(r[1])]));
}

export const personalDomainList = (): string[] => weightedList(PERSONAL_EMAIL_DOMAINS);
export const suffixWeightList = (): ReadonlyArray<readonly [string, number]> => STREET_SUFFIX_WEIGHTS;
