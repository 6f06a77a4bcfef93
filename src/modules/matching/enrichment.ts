/**
 * Enrichment attributes of matched persons, read from the match index's `m_attr` (every persons
 * column of the same release, key order, ART on person_key: an index scan, not a zone-map scan of the
 * release), in up to two statements at once. Only the selected catalog fields are read (the response
 * schema whitelists them too).
 * Identity (PII) fields are returned for individual-level (I) matches only: for H/A/S the person is
 * the household's reference person and for D only an email/phone agreed, so returning their name,
 * birth date or address would disclose someone the caller did not identify (reverse lookup).
 */
import type { CatalogField } from '../../graph/catalog-types.ts';
import { splitLookup, type MatchLevel } from '../../identity/matcher/index.ts';

export interface EnrichmentReader {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

const ident = (s: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(s)) throw new Error(`unexpected column name ${s}`);
  return s;
};

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
  const cols = [...new Set(fields.map((f) => ident(f.storage.column)))];
  const rows = await splitLookup((sql) => warehouse.query(sql), keys, source.ways,
    (part) => `SELECT person_key, ${cols.join(', ')} FROM ${source.table} WHERE person_key IN (${part.map((k) => k.toString()).join(', ')})`);
  for (const row of rows) {
    const attrs: Record<string, unknown> = {};
    for (const f of fields) attrs[f.name] = decode(f, row[f.storage.column]);
    out.set(BigInt(row.person_key as number | string), attrs);
  }
  return out;
}

function decode(f: CatalogField, raw: unknown): unknown {
  if (raw === undefined || raw === null) return null;
  if (f.storage.kind === 'bitmask') {
    const mask = BigInt(raw as number | string);
    return f.storage.values.filter((_, i) => (mask >> BigInt(i)) & 1n);
  }
  if (raw instanceof Date) return f.type === 'DATE' ? raw.toISOString().slice(0, 10) : raw.toISOString();
  if (typeof raw === 'bigint') return raw.toString();
  return raw;
}

/** The attributes a row may see: PII fields only at level I (see the file comment). */
export function visibleAttributes(attrs: Record<string, unknown>, fields: readonly CatalogField[], level: MatchLevel): { attrs: Record<string, unknown>; withheld: string[] } {
  if (level === 'I') return { attrs, withheld: [] };
  const shown: Record<string, unknown> = {};
  const withheld: string[] = [];
  for (const f of fields) {
    if (f.pii) withheld.push(f.name);
    else shown[f.name] = attrs[f.name] ?? null;
  }
  return { attrs: shown, withheld };
}
