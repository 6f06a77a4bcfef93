/**
 * Enrichment attributes of matched persons, read from the match index's `m_attr` (persons in key order,
 * ART on person_key: an index scan, not a zone-map scan of the release), in up to two statements at once.
 * Low-cardinality columns are dictionary codes packed into 64-bit words (identity/matcher/attr-pack.ts):
 * the read fetches the words holding the selected fields and the selected unpacked columns, and decodes
 * the codes here with the index's dictionaries (loaded once per index and warehouse, or by `warmEnrichment`).
 * Only the selected catalog fields are read; which of them a row may carry by its match level is the
 * matching area's rule (src/modules/matching/disclosure.ts, decision 051).
 */
import type { CatalogField } from '../../graph/index.ts';
import { dictTable, plainColumn, wordColumn, type PackedColumn } from './attr-pack.ts';
import { splitLookup } from './point.ts';

export interface EnrichmentReader {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

const ident = plainColumn;

interface Packed extends PackedColumn {
  shiftN: bigint;
  maskN: bigint;
}
interface Layout {
  packed: Map<string, Packed>;
  /** column -> values by code (index 0 = NULL), loaded on first use. */
  dicts: Map<string, Promise<unknown[]>>;
}

const layouts = new WeakMap<EnrichmentReader, Map<string, Promise<Layout>>>();

/** `alias` of `alias.m_attr`. */
const dbOf = (table: string) => table.slice(0, table.lastIndexOf('.'));

function layoutOf(warehouse: EnrichmentReader, table: string): Promise<Layout> {
  let byTable = layouts.get(warehouse);
  if (!byTable) layouts.set(warehouse, (byTable = new Map()));
  let p = byTable.get(table);
  if (!p) {
    // One index per release: keep the current and the previous one (a release switch), drop older ones.
    while (byTable.size >= 2) byTable.delete(byTable.keys().next().value!);
    p = warehouse.query(`SELECT column_name, word, shift, bits FROM ${dbOf(table)}.m_attr_layout`).then((rows) => ({
      packed: new Map(
        rows.map((r) => {
          const c: PackedColumn = { column: String(r.column_name), word: Number(r.word), shift: Number(r.shift), bits: Number(r.bits) };
          return [c.column, { ...c, shiftN: BigInt(c.shift), maskN: (1n << BigInt(c.bits)) - 1n }];
        }),
      ),
      dicts: new Map(),
    }));
    p.catch(() => byTable.delete(table));
    byTable.set(table, p);
  }
  return p;
}

function dictOf(warehouse: EnrichmentReader, table: string, layout: Layout, column: string): Promise<unknown[]> {
  let p = layout.dicts.get(column);
  if (!p) {
    p = warehouse.query(`SELECT code, value FROM ${dbOf(table)}.${dictTable(column)} ORDER BY code`).then((rows) => {
      const values: unknown[] = [null];
      for (const r of rows) values[Number(r.code)] = r.value;
      return values;
    });
    p.catch(() => layout.dicts.delete(column));
    layout.dicts.set(column, p);
  }
  return p;
}

/** Loads the layout and every dictionary of the index's m_attr (a server's warm-up after start). */
export async function warmEnrichment(warehouse: EnrichmentReader, table: string): Promise<number> {
  const layout = await layoutOf(warehouse, table);
  const dicts = await Promise.all([...layout.packed.keys()].map((c) => dictOf(warehouse, table, layout, c)));
  return dicts.reduce((n, d) => n + d.length - 1, 0);
}

/** person_key -> {field: value} over the selected fields (bitmask arrays decoded to their values). */
export async function readEnrichment(
  warehouse: EnrichmentReader,
  source: { table: string; ways: number },
  personKeys: readonly bigint[],
  fields: readonly CatalogField[],
): Promise<Map<bigint, Record<string, unknown>>> {
  const out = new Map<bigint, Record<string, unknown>>();
  const keys = [...new Set(personKeys)];
  if (keys.length === 0 || fields.length === 0) {
    for (const k of keys) out.set(k, {});
    return out;
  }
  const layout = await layoutOf(warehouse, source.table);
  const cols = [...new Set(fields.map((f) => ident(f.storage.column)))];
  const packed = cols.filter((c) => layout.packed.has(c));
  const plain = cols.filter((c) => !layout.packed.has(c));
  const words = [...new Set(packed.map((c) => layout.packed.get(c)!.word))].map(wordColumn);
  // The dictionaries (cached after the first read) load while the rows are fetched.
  const dictsRead = Promise.all(packed.map((c) => dictOf(warehouse, source.table, layout, c)));
  dictsRead.catch(() => {}); // awaited below
  const select = ['person_key', ...words, ...plain].join(', ');
  const rows = await splitLookup(
    (sql) => warehouse.query(sql),
    keys,
    source.ways,
    (part) => `SELECT ${select} FROM ${source.table} WHERE person_key IN (${part.map((k) => k.toString()).join(', ')})`,
  );
  const dicts = new Map(packed.map((c, i) => [c, i]));
  const dictValues = await dictsRead;
  for (const row of rows) {
    const raw = new Map<string, unknown>();
    for (const c of plain) raw.set(c, row[c]);
    for (const c of packed) {
      const p = layout.packed.get(c)!;
      const w = row[wordColumn(p.word)];
      const code = w === null || w === undefined ? 0 : Number((BigInt(w as number | string) >> p.shiftN) & p.maskN);
      raw.set(c, code === 0 ? null : dictValues[dicts.get(c)!]![code]);
    }
    const attrs: Record<string, unknown> = {};
    for (const f of fields) attrs[f.name] = decode(f, raw.get(f.storage.column));
    out.set(BigInt(row.person_key as number | string), attrs);
  }
  return out;
}

/** A stored value as the response carries it (bitmask -> its values, dates as ISO text, BIGINT as text). */
export function decode(f: CatalogField, raw: unknown): unknown {
  if (raw === undefined || raw === null) return null;
  if (f.storage.kind === 'bitmask') {
    const mask = BigInt(raw as number | string);
    return f.storage.values.filter((_, i) => (mask >> BigInt(i)) & 1n);
  }
  if (raw instanceof Date) return f.type === 'DATE' ? raw.toISOString().slice(0, 10) : raw.toISOString();
  if (typeof raw === 'bigint') return raw.toString();
  return raw;
}
