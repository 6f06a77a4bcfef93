/**
 * Which enrichment attributes a match returns (spec 4.5): `field_list` (catalog names or aliases) or
 * `template_id`, never both; with neither, the `standard_enrichment` template (the catalog's
 * non-identity fields tagged audience or feature_store). Identity (PII) fields are returned only
 * when asked for by name or through `standard_iag` (docs/decisions/005-match-ids-and-billing.md).
 */
import { DomainError, type ErrorIssue } from '../../core/errors.ts';
import type { CatalogField, CatalogTemplate } from '../../graph/index.ts';

export interface FieldSelection {
  /** Canonical catalog fields, in request (or template) order, deduplicated. */
  fields: CatalogField[];
  /** What the caller chose, for documentation and tests. */
  source: 'field_list' | 'template' | 'default';
}

export const DEFAULT_TEMPLATE = 'standard_enrichment';

export function selectFields(
  input: { field_list?: string[]; template_id?: string },
  catalog: { fields: readonly CatalogField[]; templates: readonly CatalogTemplate[] },
): FieldSelection {
  if (input.field_list !== undefined && input.template_id !== undefined) {
    throw new DomainError(
      'AMBIGUOUS_FIELD_SELECTION',
      'field_list and template_id are mutually exclusive; send one of them (or neither for the standard enrichment set).',
      {
        nextStep: 'Remove either field_list or template_id.',
      },
    );
  }
  const byName = new Map<string, CatalogField>();
  for (const f of catalog.fields) {
    byName.set(f.name.toLowerCase(), f);
    for (const a of f.aliases) byName.set(a.toLowerCase(), f);
  }
  if (input.field_list !== undefined) {
    const issues: ErrorIssue[] = [];
    const chosen = new Map<string, CatalogField>();
    input.field_list.forEach((name, i) => {
      const f = byName.get(name.trim().toLowerCase());
      if (f) chosen.set(f.name, f);
      else
        issues.push({
          path: `$.field_list[${i}]`,
          code: 'UNKNOWN_FIELD',
          message: `"${name}" is not a catalog field`,
          suggestions: suggest(name, catalog.fields),
        });
    });
    if (issues.length > 0) {
      const names = issues.map((x) => `"${input.field_list![Number(/\[(\d+)\]/.exec(x.path)![1])]}"`).join(', ');
      throw new DomainError('UNKNOWN_FIELD', `Unknown field_list entries: ${names}.`, {
        issues,
        details: { unknown_fields: issues.map((x) => input.field_list![Number(/\[(\d+)\]/.exec(x.path)![1])]) },
        nextStep: 'GET /v1/catalog/fields lists the attribute names.',
      });
    }
    return { fields: [...chosen.values()], source: 'field_list' };
  }
  const templateId = input.template_id ?? DEFAULT_TEMPLATE;
  const template = catalog.templates.find((t) => t.template_id === templateId);
  if (!template) throw new DomainError('INVALID_REQUEST', `Unknown template_id "${templateId}".`);
  const fields = template.fields.map((n) => byName.get(n.toLowerCase())).filter((f): f is CatalogField => !!f);
  return { fields, source: input.template_id === undefined ? 'default' : 'template' };
}

/** Up to three catalog names sharing a prefix or contained in the given name. */
function suggest(name: string, fields: readonly CatalogField[]): string[] {
  const n = name.trim().toLowerCase();
  if (!n) return [];
  return fields
    .filter((f) => f.name.startsWith(n.slice(0, 3)) || n.includes(f.name) || f.name.includes(n))
    .slice(0, 3)
    .map((f) => f.name);
}
