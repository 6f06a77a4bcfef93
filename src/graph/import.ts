/**
 * `importGraph`: an operator's person file (CSV or Parquet) becomes a new major release replacing the
 * current graph. The mapping names, per graph attribute, the source column that holds it; unmapped
 * attributes are NULL. Rows sharing a person key are one person: the first row gives the person
 * attributes, and every distinct email, phone and address of the person is kept (the first address is
 * the current one; a person without any street keeps the first ZIP given, with its city and state). Normalization happens in SQL, the same rules as the matcher's input side.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildRelease, stageReporter, todayIso, type ProgressFn } from './build.ts';
import { lit, type ReleaseWriter } from './duck.ts';
import { GraphImportError } from './errors.ts';
import { loadRefZips } from './reference.ts';
import { nextMajor, readCurrentRelease, type ReleaseInfo } from './releases.ts';
import { FILL_HOUSEHOLDS_SQL, PERSON_COLUMNS, type PersonColumn } from './schema.ts';
import { CATALOG_FIELDS } from './person-fields.ts';

/** Attributes of the spec's match input record, plus the keys. */
export const MATCH_ATTRIBUTES = [
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'email',
  'phone',
  'address_1',
  'address_2',
  'city',
  'state',
  'zip',
  'dob',
] as const;
/** Persons columns computed from other attributes, never taken from the file. */
const DERIVED = new Set(['zip5', 'zip3', 'lat', 'lon', 'household_size', 'presence_of_children', 'has_email', 'has_phone']);
/** Catalog attributes an operator may map: plain persons columns that are not derived or identity. */
export const IMPORTABLE_CATALOG_ATTRIBUTES: readonly string[] = CATALOG_FIELDS.filter(
  (f) => f.storage.kind === 'column' && f.storage.column in PERSON_COLUMNS && !DERIVED.has(f.name),
)
  .map((f) => f.name)
  .filter((n) => !(MATCH_ATTRIBUTES as readonly string[]).includes(n));

export type ImportMapping = Record<string, string>;

export interface ImportGraphOptions {
  dataDir: string;
  /** Path of a .csv (or .tsv/.txt, header row required) or .parquet file. */
  file: string;
  /** Graph attribute -> source column, e.g. {"person_key": "id", "email": "mail"}. */
  mapping: ImportMapping;
  releaseDate?: string;
  memoryLimit?: string;
  threads?: number;
  onProgress?: ProgressFn;
}

export interface ImportResult extends ReleaseInfo {
  /** Things the operator should know, e.g. that text person keys were hashed. */
  notes: string[];
}

export const IMPORT_STAGES = ['validate', 'load', 'persons', 'emails', 'phones', 'addresses', 'write', 'done'] as const;

function sourceSql(file: string): string {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.parquet') return `read_parquet(${lit(file)})`;
  return `read_csv(${lit(file)}, header = true, all_varchar = true${ext === '.tsv' ? ", delim = '\\t'" : ''})`;
}

const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

/** Checks the mapping shape and attribute names (no file access). Returns the issues found. */
export function mappingIssues(mapping: unknown): string[] {
  if (!mapping || typeof mapping !== 'object' || Array.isArray(mapping))
    return ['The mapping must be a JSON object of graph attribute -> source column.'];
  const issues: string[] = [];
  const allowed = new Set<string>(['person_key', 'household_key', ...MATCH_ATTRIBUTES, ...IMPORTABLE_CATALOG_ATTRIBUTES]);
  for (const [attr, col] of Object.entries(mapping)) {
    if (typeof col !== 'string' || col.trim() === '')
      issues.push(`Attribute "${attr}" must map to a source column name (a non-empty string).`);
    if (!allowed.has(attr)) {
      const why = DERIVED.has(attr)
        ? ' it is derived during import (map "zip" for the ZIP code; lat/lon, zip3 and counts are computed)'
        : attr === 'interests' || attr === 'purchase_behaviors'
          ? ' modelled bitmask attributes cannot be imported yet'
          : ' it is not a graph attribute';
      issues.push(`Unknown attribute "${attr}":${why}. Allowed: ${[...allowed].join(', ')}.`);
    }
  }
  if (!('person_key' in mapping)) issues.push('No column is mapped to "person_key": every row needs the key of the person it belongs to.');
  return issues;
}

export async function importGraph(o: ImportGraphOptions): Promise<ImportResult> {
  const step = stageReporter(IMPORT_STAGES, o.onProgress);
  step('validate');
  const issues = mappingIssues(o.mapping);
  const file = path.resolve(o.file);
  const ext = path.extname(file).toLowerCase();
  if (!['.csv', '.tsv', '.txt', '.parquet'].includes(ext))
    issues.push(`Unsupported file type "${ext || '(none)'}": use .csv, .tsv, .txt or .parquet.`);
  if (!fs.existsSync(file)) issues.push(`File not found: ${file}`);
  if (issues.length > 0) throw new GraphImportError(issues);
  const mapping = o.mapping;
  const releaseDate = o.releaseDate ?? todayIso();
  const notes: string[] = [];
  const { major, minor } = nextMajor(readCurrentRelease(o.dataDir));
  const info = await buildRelease({
    dataDir: o.dataDir,
    major,
    minor,
    source: 'import',
    releaseDate,
    memoryLimit: o.memoryLimit,
    threads: o.threads,
    // rn_ = row_number() OVER () must be the file's row order ("first row wins").
    preserveInsertionOrder: true,
    fill: async (w) => {
      await loadSource(w, file, mapping, notes);
      step('load');
      await loadRefZips(w);
      await normalize(w, mapping);
      step('persons');
      await fillPersons(w, mapping, releaseDate);
      step('emails');
      await w.run(`INSERT INTO emails BY NAME SELECT DISTINCT person_key, email, sha256(email) AS email_sha256, NULL AS kind
        FROM imp WHERE email IS NOT NULL ORDER BY person_key, email`);
      step('phones');
      await w.run(`INSERT INTO phones BY NAME SELECT DISTINCT person_key, phone, sha256(phone) AS phone_sha256, NULL AS kind
        FROM imp WHERE phone IS NOT NULL ORDER BY person_key, phone`);
      step('addresses');
      await w.run(`
        INSERT INTO addresses BY NAME
        SELECT a.person_key, a.address_1, a.address_2, a.city, a.state, a.zip5, left(a.zip5, 3) AS zip3, r.lat, r.lon,
          a.rn_ = f.rn_ AS is_current, NULL::DATE AS moved_in, NULL::DATE AS moved_out
        FROM (SELECT person_key, address_1, address_2, city, state, zip5, min(rn_) AS rn_ FROM imp
              WHERE address_1 IS NOT NULL GROUP BY ALL) a
        JOIN (SELECT person_key, min(rn_) FILTER (WHERE address_1 IS NOT NULL) AS rn_ FROM imp GROUP BY person_key) f USING (person_key)
        LEFT JOIN ref_zips r ON r.zip5 = a.zip5
        ORDER BY a.person_key, is_current DESC, a.rn_`);
      step('write');
      await w.run(FILL_HOUSEHOLDS_SQL);
      await w.run('DROP TABLE src; DROP TABLE imp');
    },
  });
  o.onProgress?.({ step: 'done', done: IMPORT_STAGES.length, total: IMPORT_STAGES.length });
  return { ...info, notes };
}

/** Loads the file into TEMP `src` (one VARCHAR column per mapped attribute, plus rn_ = file order). */
async function loadSource(w: ReleaseWriter, file: string, mapping: ImportMapping, notes: string[]): Promise<void> {
  const src = sourceSql(file);
  let cols: Array<{ name: string; type: string }>;
  try {
    cols = (await w.conn.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`))
      .getRowsJS()
      .map((r) => ({ name: String(r[0]), type: String(r[1]) }));
  } catch (cause) {
    throw new GraphImportError([`Cannot read ${file}: ${(cause as Error).message.split('\n')[0]}`], { cause });
  }
  const names = new Set(cols.map((c) => c.name));
  const missing = Object.entries(mapping)
    .filter(([, col]) => !names.has(col))
    .map(([attr, col]) => {
      const near = cols.find((c) => c.name.toLowerCase() === col.toLowerCase());
      return `Column "${col}" (mapped to "${attr}") is not in the file${near ? `; did you mean "${near.name}"?` : ''}. Columns in the file: ${cols.map((c) => c.name).join(', ')}.`;
    });
  if (missing.length > 0) throw new GraphImportError(missing);
  const select = Object.entries(mapping).map(([attr, col]) => `nullif(trim(${q(col)}::VARCHAR), '') AS ${q(attr)}`);
  await w.run(`CREATE OR REPLACE TEMP TABLE src AS SELECT row_number() OVER () AS rn_, ${select.join(', ')} FROM ${src}`);
  const nullKeys = Number(await w.scalar<bigint>('SELECT count(*) FROM src WHERE person_key IS NULL'));
  if (nullKeys > 0) notes.push(`${nullKeys} row(s) without a person key were skipped.`);
  // Keys: integers are kept; anything else is hashed (deterministically) to a BIGINT, and we say so.
  for (const key of ['person_key', 'household_key'] as const) {
    if (!(key in mapping)) continue;
    const text = Number(await w.scalar<bigint>(`SELECT count(*) FROM src WHERE ${key} IS NOT NULL AND try_cast(${key} AS BIGINT) IS NULL`));
    if (text > 0) {
      await w.run(`ALTER TABLE src ADD COLUMN ${key}_int BIGINT; UPDATE src SET ${key}_int = (hash(${key}) >> 1)::BIGINT`);
      notes.push(
        `${key}: column "${mapping[key]}" holds text (${text} value(s) are not integers), so every ${key} was hashed to a 63-bit integer; the same text always gives the same key.`,
      );
    } else {
      await w.run(`ALTER TABLE src ADD COLUMN ${key}_int BIGINT; UPDATE src SET ${key}_int = ${key}::BIGINT`);
    }
  }
}

/** TEMP `imp`: one normalized row per source row with a person key. */
async function normalize(w: ReleaseWriter, mapping: ImportMapping): Promise<void> {
  const v = (attr: string) => (attr in mapping ? q(attr) : 'NULL::VARCHAR');
  const up = (attr: string) => `upper(regexp_replace(${v(attr)}, '\\s+', ' ', 'g'))`;
  const digits = (attr: string) => `regexp_replace(${v(attr)}, '[^0-9]', '', 'g')`;
  const dob = v('dob');
  await w.run(`
    CREATE OR REPLACE TEMP TABLE imp AS
    WITH s AS (SELECT *, ${digits('phone')} AS ph_, ${digits('zip')} AS z_ FROM src WHERE person_key IS NOT NULL)
    SELECT rn_, person_key_int AS person_key, ${'household_key' in mapping ? 'household_key_int' : 'NULL::BIGINT'} AS household_key,
      ${['first_name', 'middle_name', 'last_name', 'name_suffix', 'address_1', 'address_2', 'city', 'state'].map((a) => `${up(a)} AS ${a}`).join(', ')},
      CASE WHEN ${v('email')} LIKE '%_@_%' THEN lower(${v('email')}) END AS email,
      -- US numbers only: 10 digits, or 11 with the country code 1; anything else is not a usable phone.
      CASE WHEN length(ph_) = 10 THEN '+1' || ph_ WHEN length(ph_) = 11 AND ph_[1] = '1' THEN '+' || ph_ END AS phone,
      -- A spreadsheet often drops a ZIP's leading zero (02134 -> 2134): pad it back; ZIP+4 keeps its first 5.
      CASE WHEN length(z_) BETWEEN 3 AND 5 THEN lpad(z_, 5, '0') WHEN length(z_) BETWEEN 8 AND 9 THEN left(lpad(z_, 9, '0'), 5) END AS zip5,
      coalesce(try_cast(${dob} AS DATE), try_strptime(${dob}, '%m/%d/%Y')::DATE, try_strptime(${dob}, '%Y%m%d')::DATE) AS dob
    FROM s`);
}

/** One row per person: the first row's attributes, geography completed from the reference ZIPs. */
async function fillPersons(w: ReleaseWriter, mapping: ImportMapping, releaseDate: string): Promise<void> {
  const rd = `DATE ${lit(releaseDate)}`;
  const catalog = IMPORTABLE_CATALOG_ATTRIBUTES.filter((a) => a in mapping) as PersonColumn[];
  const catalogSelect = catalog.map((a) => {
    const type = PERSON_COLUMNS[a].replace(/ NOT NULL.*$/, '');
    const raw = `arg_min(s.${q(a)}, s.rn_)`;
    if (type === 'BOOLEAN')
      return `CASE WHEN lower(${raw}) IN ('true', 't', 'yes', 'y', '1') THEN true WHEN lower(${raw}) IN ('false', 'f', 'no', 'n', '0') THEN false END AS ${a}`;
    return `try_cast(${raw} AS ${type}) AS ${a}`;
  });
  // A mapped age wins; otherwise age follows from dob at the release date.
  const hasAge = catalog.includes('age');
  const age = `${hasAge ? 'coalesce(g.age, ' : '('}date_sub('year', g.dob, ${rd})::INT)`;
  await w.run(`
    INSERT INTO persons BY NAME
    -- The person's locality comes from one row: the first with a street, else the first with a ZIP. A file of
    -- names, dobs and ZIPs without streets keeps each person's ZIP (issue #31): without it the matcher could not
    -- tell two namesakes born the same day apart by the ZIP a row gives, and the person was in no ZIP count.
    WITH l AS (SELECT *, coalesce(min(rn_) FILTER (WHERE address_1 IS NOT NULL) OVER w,
          min(rn_) FILTER (WHERE zip5 IS NOT NULL) OVER w) AS loc_rn_
        FROM imp WINDOW w AS (PARTITION BY person_key)),
    f AS (SELECT person_key, arg_min(household_key, rn_) AS household_key,
        ${['first_name', 'middle_name', 'last_name', 'name_suffix', 'dob'].map((a) => `arg_min(${a}, rn_) AS ${a}`).join(', ')},
        ${['address_1', 'address_2'].map((a) => `any_value(${a}) FILTER (WHERE rn_ = loc_rn_ AND address_1 IS NOT NULL) AS ${a}`).join(', ')},
        ${['city', 'state', 'zip5'].map((a) => `any_value(${a}) FILTER (WHERE rn_ = loc_rn_) AS ${a}`).join(', ')},
        bool_or(email IS NOT NULL) AS has_email, bool_or(phone IS NOT NULL) AS has_phone
      FROM l GROUP BY person_key),
    c AS (SELECT person_key_int AS person_key${catalog.length ? ', ' + catalogSelect.join(', ') : ''}
      FROM src s WHERE person_key_int IS NOT NULL GROUP BY person_key_int),
    g AS (SELECT f.*, ${catalog.map((a) => `c.${a}`).join(', ')}${catalog.length ? ',' : ''} r.city AS ref_city, r.state AS ref_state, r.lat, r.lon
      FROM f LEFT JOIN c ON c.person_key = f.person_key LEFT JOIN ref_zips r ON r.zip5 = f.zip5)
    SELECT g.* EXCLUDE (ref_city, ref_state, city, state${hasAge ? ', age' : ''}),
      coalesce(g.city, ref_city) AS city, coalesce(g.state, ref_state) AS state, left(g.zip5, 3) AS zip3, ${age} AS age,
      count(*) OVER (PARTITION BY g.household_key)::INT AS household_size,
      bool_or(${age} < 18) OVER (PARTITION BY g.household_key) AS presence_of_children
    FROM g ORDER BY g.person_key`);
  // A person without a household key has no household: its household counts stay NULL.
  await w.run('UPDATE persons SET household_size = NULL, presence_of_children = NULL WHERE household_key IS NULL');
}
