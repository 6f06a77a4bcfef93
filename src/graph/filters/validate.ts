/**
 * Validation of untrusted filter groups against the catalog. Collects every issue (not just the
 * first) so a client can fix a whole request in one round trip; each issue carries the JSON path in
 * the form the client sent (`$.filters[0].value` for the flat form).
 */
import type { FilterOperator } from '../field-types.ts';
import { indexCatalog, type FilterCatalog } from './catalog-index.ts';
import { isObject } from './normalize.ts';
import { allowedOperators, CASE_INSENSITIVE_OPS } from './operators.ts';
import { nearest } from './text.ts';
import {
  FILTER_OPERATORS,
  type FilterCondition,
  type FilterGroup,
  type FilterInputForm,
  type FilterIssue,
  type Add,
  type FilterIssueCode,
  type TextComparison,
} from './types.ts';
import { validateValue } from './validate-value.ts';

export type ValidationResult = { ok: true; groups: FilterGroup[] } | { ok: false; issues: FilterIssue[] };

const GROUP_KEYS = new Set(['id', 'filters', 'combinator']);
const CONDITION_KEYS = new Set(['field', 'op', 'value', 'text_comparison', 'trim_whitespace']);
const TEXT_COMPARISONS: readonly TextComparison[] = ['exact', 'case_insensitive'];

export interface ValidateOptions {
  /** The request form, for issue paths; default `filter_groups`. */
  form?: FilterInputForm;
}

export function validateFilterGroups(groups: unknown, catalog: FilterCatalog, opts: ValidateOptions = {}): ValidationResult {
  const form = opts.form ?? 'filter_groups';
  const issues: FilterIssue[] = [];
  const add: Add = (path, code, message, suggestions = []) => {
    issues.push({ path, code, message, suggestions });
  };
  const root = form === 'filters' ? '$.filters' : '$.filter_groups';

  if (!Array.isArray(groups) || groups.length === 0) {
    add(root, 'INVALID_FILTER_SHAPE', `\`${root.slice(2)}\` must be a non-empty array.`);
    return { ok: false, issues };
  }
  const out: FilterGroup[] = [];
  const seenIds = new Set<string>();
  groups.forEach((g, gi) => {
    const gPath = `$.filter_groups[${gi}]`;
    // The flat form has exactly one generated group; its filters live at `$.filters`.
    const filtersPath = form === 'filters' ? '$.filters' : `${gPath}.filters`;
    if (!isObject(g)) {
      add(gPath, 'INVALID_FILTER_SHAPE', 'A filter group must be an object with `id`, `filters` and `combinator`.');
      return;
    }
    for (const k of Object.keys(g)) {
      if (!GROUP_KEYS.has(k)) add(`${gPath}.${k}`, 'INVALID_FILTER_SHAPE', `Unknown property \`${k}\` in a filter group.`, [...GROUP_KEYS]);
    }
    if (typeof g.id !== 'string' || g.id.trim() === '') {
      add(`${gPath}.id`, 'INVALID_FILTER_SHAPE', 'Every filter group needs a non-empty string `id` (a UUID or NanoID).');
    } else if (seenIds.has(g.id)) {
      add(`${gPath}.id`, 'INVALID_FILTER_SHAPE', `Group id \`${g.id}\` is used more than once; ids must be unique.`);
    } else seenIds.add(g.id);
    if (g.combinator !== 'AND' && g.combinator !== 'OR') {
      add(
        `${gPath}.combinator`,
        'INVALID_FILTER_SHAPE',
        '`combinator` must be "AND" or "OR" (it is ignored on the first group but still required).',
        ['AND', 'OR'],
      );
    }
    if (!Array.isArray(g.filters) || g.filters.length === 0) {
      add(filtersPath, 'INVALID_FILTER_SHAPE', 'A filter group needs a non-empty `filters` array.');
      return;
    }
    const conditions: FilterCondition[] = [];
    g.filters.forEach((c, ci) => {
      const cond = validateCondition(c, `${filtersPath}[${ci}]`, catalog, add, issues);
      if (cond) conditions.push(cond);
    });
    out.push({ id: String(g.id), filters: conditions, combinator: g.combinator === 'OR' ? 'OR' : 'AND' });
  });
  return issues.length ? { ok: false, issues } : { ok: true, groups: out };
}

function validateCondition(
  c: unknown,
  path: string,
  catalog: FilterCatalog,
  add: Add,
  issues: readonly FilterIssue[],
): FilterCondition | undefined {
  if (!isObject(c)) {
    add(path, 'INVALID_FILTER_SHAPE', 'A filter condition must be an object with `field`, `op` and usually `value`.');
    return undefined;
  }
  const before = issues.length;
  for (const k of Object.keys(c)) {
    if (!CONDITION_KEYS.has(k))
      add(`${path}.${k}`, 'INVALID_FILTER_SHAPE', `Unknown property \`${k}\` in a filter condition.`, [...CONDITION_KEYS]);
  }
  if (typeof c.field !== 'string' || c.field === '') {
    add(`${path}.field`, 'INVALID_FILTER_SHAPE', '`field` is required and must be a catalog field name.');
    return undefined;
  }
  if (typeof c.op !== 'string') {
    add(`${path}.op`, 'INVALID_FILTER_SHAPE', '`op` is required and must be an operator string such as "=" or "IN".', [
      ...FILTER_OPERATORS,
    ]);
    return undefined;
  }
  const index = indexCatalog(catalog);
  const field = index.resolve(c.field);
  if (!field) {
    const suggestions = [...new Set(nearest(c.field, index.allNames, 6).map((n) => index.canonicalOf(n)!))].slice(0, 3);
    add(
      `${path}.field`,
      'UNKNOWN_FILTER_FIELD',
      `Unknown filter field \`${c.field}\`.${suggestions.length ? ` Did you mean ${suggestions.map((s) => `\`${s}\``).join(', ')}?` : ''}`,
      suggestions,
    );
    return undefined;
  }
  if (!field.filterable || allowedOperators(field).length === 0) {
    add(`${path}.field`, 'FIELD_NOT_FILTERABLE', `Field \`${field.name}\` cannot be used in filters.`);
    return undefined;
  }
  const allowed = allowedOperators(field);
  if (!allowed.includes(c.op as FilterOperator)) {
    const known = (FILTER_OPERATORS as readonly string[]).includes(c.op);
    add(
      `${path}.op`,
      'UNSUPPORTED_FILTER_OPERATOR',
      `${known ? `Operator \`${c.op}\` is not supported` : `\`${c.op}\` is not an operator`} for field \`${field.name}\` (${field.type}); allowed: ${allowed.join(', ')}.`,
      allowed,
    );
    return undefined;
  }
  const op = c.op as FilterOperator;
  const textual = field.type === 'STRING' || field.type === 'ARRAY<STRING>';
  let caseInsensitive = false;
  if (c.text_comparison !== undefined) {
    if (!TEXT_COMPARISONS.includes(c.text_comparison as TextComparison)) {
      add(`${path}.text_comparison`, 'UNSUPPORTED_TEXT_COMPARISON', '`text_comparison` must be "exact" or "case_insensitive".', [
        ...TEXT_COMPARISONS,
      ]);
    } else if (c.text_comparison === 'case_insensitive') {
      if (!textual) {
        add(
          `${path}.text_comparison`,
          'UNSUPPORTED_TEXT_COMPARISON',
          `Case-insensitive comparison applies to text fields only; \`${field.name}\` is ${field.type}.`,
          ['exact'],
        );
      } else if (!CASE_INSENSITIVE_OPS.has(op)) {
        add(
          `${path}.text_comparison`,
          'UNSUPPORTED_TEXT_COMPARISON',
          `Case-insensitive comparison is not defined for \`${op}\`; use =, !=, IN, NOT IN or LIKE.`,
          ['exact'],
        );
      } else caseInsensitive = true;
    }
  }
  let trim = false;
  if (c.trim_whitespace !== undefined) {
    if (typeof c.trim_whitespace !== 'boolean') {
      add(`${path}.trim_whitespace`, 'INVALID_FILTER_SHAPE', '`trim_whitespace` must be true or false.', ['true', 'false']);
    } else if (c.trim_whitespace && !textual) {
      add(
        `${path}.trim_whitespace`,
        'UNSUPPORTED_TEXT_COMPARISON',
        `Whitespace trimming applies to text fields only; \`${field.name}\` is ${field.type}.`,
      );
    } else trim = c.trim_whitespace;
  }
  validateValue(c, path, field, op, { caseInsensitive, trim }, add);
  if (issues.length !== before) return undefined;
  const out: FilterCondition = { field: field.name, op };
  if (c.value !== undefined && c.value !== null) out.value = c.value as FilterCondition['value'];
  if (c.text_comparison !== undefined) out.text_comparison = c.text_comparison as TextComparison;
  if (c.trim_whitespace !== undefined) out.trim_whitespace = c.trim_whitespace as boolean;
  return out;
}
