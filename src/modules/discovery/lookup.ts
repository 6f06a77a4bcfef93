/**
 * Lookup: a small, masked sample of matching persons (the privacy layer generalizes values, keeps rows
 * from eligible parts only and k-anonymous combinations only). Field masking is by construction: only catalog
 * fields that are not PII can be selected (names, emails, phones, street addresses and exact dob are
 * PII in the catalog), person_key is never selected, and the response schema whitelists the non-PII
 * field names again, so a PII column cannot leave even if a bug let one into the SELECT.
 */
import { indexCatalog } from '../../graph/index.ts';
import { nearest } from '../../graph/index.ts';
import { DomainError, type ErrorIssue } from '../../core/errors.ts';
import type { CatalogField } from '../../graph/index.ts';

/** Never selectable, whatever a catalog says: the internal key of the graph. */
const NEVER = new Set(['person_key', 'household_key']);

export function validateLookupFields(catalog: readonly CatalogField[], names: readonly string[]): CatalogField[] {
  const index = indexCatalog(catalog);
  const issues: ErrorIssue[] = [];
  const out = new Map<string, CatalogField>();
  names.forEach((name, i) => {
    const field = index.resolve(name);
    if (!field || NEVER.has(field.storage.column)) {
      const suggestions = nearest(
        name,
        catalog.filter((f) => !f.pii).map((f) => f.name),
      );
      issues.push({ path: `$.fields[${i}]`, code: 'UNKNOWN_FIELD', message: `Unknown field \`${name}\`.`, suggestions });
    } else if (field.pii) {
      issues.push({
        path: `$.fields[${i}]`,
        code: 'PII_FIELD_NOT_ALLOWED',
        message: `\`${field.name}\` is personally identifying and is never returned by lookup.`,
        suggestions: [],
      });
    } else out.set(field.name, field);
  });
  if (issues.length > 0) {
    const refused = issues.map((i) => names[Number(i.path.match(/\d+/)![0])]).join(', ');
    throw new DomainError('INVALID_LOOKUP_FIELDS', `These fields cannot be returned by lookup: ${refused}.`, {
      issues,
      nextStep: 'Choose fields from `available_fields` (non-PII catalog fields; see GET /v1/catalog/fields).',
    });
  }
  return [...out.values()];
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

export function readLookup(
  rows: Record<string, unknown>[],
  fields: readonly CatalogField[],
): { total: number; records: Record<string, unknown>[] } {
  const total = Number(rows[0]?.__total ?? 0);
  const records = rows
    .filter((row) => row.__row !== null && row.__row !== undefined)
    .map((row) =>
      Object.fromEntries(
        fields.map((f, i) => {
          const v = row[`c${i}`];
          return [f.name, f.storage.kind === 'bitmask' ? decodeMask(v, f.storage.values) : jsonValue(v)];
        }),
      ),
    );
  return { total, records };
}
