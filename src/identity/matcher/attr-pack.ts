/**
 * The enrichment table of the match index (`m_attr`), packed for point reads.
 *
 * POST /v1/match reads the attributes of its matched persons (about 80 of 100 rows) by person_key. The ART
 * index scan fetches each selected column of each row separately, and that fetch, not the lookup, is the
 * cost: at 10M persons the 26 columns of the default enrichment set took 16-19 ms for 80 persons
 * (FSST-compressed strings most: work_city alone about 2 ms), four integer columns about 0.7 ms.
 * So every persons column with at most PACK_MAX_DISTINCT distinct values is stored as a dictionary code
 * (1-based in value order, 0 = NULL) of ceil(log2(distinct + 1)) bits, and the codes are packed, in column
 * order, into 64-bit words `w0`, `w1`, ... (UBIGINT, a column does not straddle two words). A read fetches
 * person_key, the words holding the selected columns and the few columns left unpacked (high-cardinality
 * ones such as address_1, lat, lon), then decodes in JS with the dictionaries (`m_attr_dict_<column>`, the
 * value column of the same type as the persons column, so a decoded value is exactly what reading the
 * column returns). `m_attr_layout` says where each packed column lives.
 */
import { lit } from '../../graph/index.ts';

/** Columns with more distinct values than this stay plain columns of m_attr (last_name at 10M: 111k). */
export const PACK_MAX_DISTINCT = 1 << 17;

/** Column types whose values are dictionary-coded when few enough (scalars only). */
const PACKABLE_TYPES = new Set([
  'VARCHAR',
  'BOOLEAN',
  'DATE',
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
  'FLOAT',
  'DOUBLE',
]);

export interface PackedColumn {
  column: string;
  word: number;
  shift: number;
  bits: number;
}

/** Bits of a code in 0..distinct (0 = NULL). */
export const codeBits = (distinct: number) => Math.max(1, Math.ceil(Math.log2(distinct + 1)));

/** Packs columns in the given order into 64-bit words: next word when a column does not fit. */
export function packLayout(columns: readonly { column: string; distinct: number }[]): PackedColumn[] {
  const out: PackedColumn[] = [];
  let word = 0;
  let used = 0;
  for (const c of columns) {
    const bits = codeBits(c.distinct);
    if (bits > 64) throw new Error(`column ${c.column}: ${c.distinct} distinct values do not fit a word`);
    if (used + bits > 64) {
      word++;
      used = 0;
    }
    out.push({ column: c.column, word, shift: used, bits });
    used += bits;
  }
  return out;
}

/** A persons column name as it goes into SQL unquoted (and into dictionary table names): plain names only. */
export function plainColumn(s: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(s)) throw new Error(`unexpected column name ${s}`);
  return s;
}
const ident = plainColumn;

export const dictTable = (column: string) => `m_attr_dict_${ident(column)}`;
export const wordColumn = (word: number) => `w${word}`;

type Run = (sql: string) => Promise<unknown>;
type Rows = (sql: string) => Promise<Record<string, unknown>[]>;

/**
 * Creates m_attr (person_key, the unpacked columns, the words), its dictionaries and m_attr_layout from
 * `persons` (a table of the attached release), in the connection's current database. Returns the layout.
 */
export async function createPackedAttrs(run: Run, rows: Rows, persons: string, maxDistinct = PACK_MAX_DISTINCT): Promise<PackedColumn[]> {
  const cols = (await rows(`DESCRIBE SELECT * FROM ${persons}`)) as { column_name: string; column_type: string }[];
  const candidates = cols
    .filter((c) => c.column_name !== 'person_key' && PACKABLE_TYPES.has(c.column_type))
    .map((c) => ident(c.column_name));
  // An estimate first (one scan), so columns far above the cap (addresses, coordinates) are never grouped.
  const approx =
    candidates.length === 0
      ? {}
      : (await rows(`SELECT ${candidates.map((c) => `approx_count_distinct(${c})::BIGINT AS ${c}`).join(', ')} FROM ${persons}`))[0]!;
  const packed: { column: string; distinct: number }[] = [];
  for (const c of candidates) {
    if (Number(approx[c]) > 2 * maxDistinct) continue;
    await run(`CREATE TABLE ${dictTable(c)} AS SELECT (row_number() OVER (ORDER BY v))::INTEGER AS code, v AS value
      FROM (SELECT DISTINCT ${c} AS v FROM ${persons} WHERE ${c} IS NOT NULL) ORDER BY code`);
    const n = Number((await rows(`SELECT count(*)::BIGINT AS n FROM ${dictTable(c)}`))[0]!.n);
    if (n > maxDistinct) await run(`DROP TABLE ${dictTable(c)}`);
    else packed.push({ column: c, distinct: n });
  }
  const layout = packLayout(packed);
  const packedSet = new Set(layout.map((p) => p.column));
  const plain = cols.map((c) => ident(c.column_name)).filter((c) => c !== 'person_key' && !packedSet.has(c));
  const words = [...new Set(layout.map((p) => p.word))].map((w) => {
    const parts = layout.flatMap((p, i) => (p.word === w ? [`(coalesce(d${i}.code, 0)::UBIGINT << ${p.shift})`] : []));
    return `(${parts.join(' | ')}) AS ${wordColumn(w)}`;
  });
  const joins = layout.map((p, i) => `LEFT JOIN ${dictTable(p.column)} d${i} ON d${i}.value = p.${p.column}`);
  await run(`CREATE TABLE m_attr AS SELECT p.person_key${plain.map((c) => `, p.${c}`).join('')}${words.map((w) => `, ${w}`).join('')}
    FROM ${persons} p ${joins.join(' ')} ORDER BY p.person_key`);
  await run('CREATE TABLE m_attr_layout (column_name VARCHAR, word INTEGER, shift INTEGER, bits INTEGER)');
  if (layout.length > 0) {
    await run(`INSERT INTO m_attr_layout VALUES ${layout.map((p) => `(${lit(p.column)}, ${p.word}, ${p.shift}, ${p.bits})`).join(', ')}`);
  }
  return layout;
}
