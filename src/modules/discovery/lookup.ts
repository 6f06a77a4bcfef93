/**
 * Lookup: a small, masked sample of matching persons. Masking is by construction: only catalog
 * fields that are not PII can be selected (names, emails, phones, street addresses and exact dob are
 * PII in the catalog), person_key is never selected, and the response schema whitelists the non-PII
 * field names again, so a PII column cannot leave even if a bug let one into the SELECT.
 */
import { indexCatalog } from '../../graph/filters/catalog-index.ts';
import { nearest, quoteIdent } from '../../graph/filters/text.ts';
import { AppError, type ErrorIssue } from '../../http/errors.ts';
import type { CatalogField } from '../catalog/types.ts';

/** Never selectable, whatever a catalog says: the internal key of the graph. */
const NEVER = new Set(['person_key', 'household_key']);

export function validateLookupFields(catalog: readonly CatalogField[], names: readonly string[]): CatalogField[] {
  const index = indexCatalog(catalog);
  const issues: ErrorIssue[] = [];
  const out = new Map<string, CatalogField>();
  names.forEach((name, i) => {
    const field = index.resolve(name);
    if (!field || NEVER.has(field.storage.column)) {
      const suggestions = nearest(name, catalog.filter((f) => !f.pii).map((f) => f.name));
      issues.push({ path: `$.fields[${i}]`, code: 'UNKNOWN_FIELD', message: `Unknown field \`${name}\`.`, suggestions });
    } else if (field.pii) {
      issues.push({ path: `$.fields[${i}]`, code: 'PII_FIELD_NOT_ALLOWED', message: `\`${field.name}\` is personally identifying and is never returned by lookup.`, suggestions: [] });
    } else out.set(field.name, field);
  });
  if (issues.length > 0) {
    const refused = issues.map((i) => names[Number(i.path.match(/\d+/)![0])]).join(', ');
    throw new AppError('INVALID_LOOKUP_FIELDS', 400, `These fields cannot be returned by lookup: ${refused}.`, {
      issues,
      nextStep: 'Choose fields from `available_fields` (non-PII catalog fields; see GET /v1/catalog/fields).',
    });
  }
  return [...out.values()];
}

/**
 * Total and sample in one statement: the CTE counts, the LEFT JOIN brings at most `limit` rows in a
 * stable pseudo-random order (hash of the key), and a zero-match query still returns its total.
 */
export function buildLookup(personsTable: string, where: string, fields: readonly CatalogField[], limit: number): string {
  const cols = fields.map((f, i) => `p.${quoteIdent(f.storage.column)} AS c${i}`).join(', ');
  return `WITH t AS (SELECT count(*) AS n FROM ${personsTable} p WHERE ${where}),
    s AS (SELECT ${cols} FROM ${personsTable} p WHERE ${where} ORDER BY hash(p.person_key), p.person_key LIMIT ${Math.trunc(limit)})
    SELECT t.n AS __total, s.* FROM t LEFT JOIN s ON TRUE`;
}

function jsonValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object' && !Array.isArray(v)) return String(v);
  return v;
}

function decodeMask(v: unknown, values: readonly string[]): string[] {
  const mask = BigInt((v as bigint | number | null) ?? 0);
  return values.filter((_, i) => (mask >> BigInt(i)) & 1n);
}

export function readLookup(rows: Record<string, unknown>[], fields: readonly CatalogField[]): { total: number; records: Record<string, unknown>[] } {
  const total = Number(rows[0]?.__total ?? 0);
  const records = total === 0 ? [] : rows.map((row) =>
    Object.fromEntries(fields.map((f, i) => {
      const v = row[`c${i}`];
      return [f.name, f.storage.kind === 'bitmask' ? decodeMask(v, f.storage.values) : jsonValue(v)];
    })),
  );
  return { total, records };
}
