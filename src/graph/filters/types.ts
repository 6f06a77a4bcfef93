/**
 * Public types of the filter language (spec §2 "Filter condition" / "Filter group", §7 issues).
 * Input arrives as untrusted JSON; these types describe it only after validation.
 */
import type { FilterOperator } from '../field-types.ts';

export type { FilterOperator };

export const FILTER_OPERATORS: readonly FilterOperator[] = [
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'IN',
  'NOT IN',
  'BETWEEN',
  'LIKE',
  'ARRAY_CONTAINS',
  'ARRAY_CONTAINS_ANY',
  'IS NULL',
  'IS NOT NULL',
];

export type TextComparison = 'exact' | 'case_insensitive';
export type Combinator = 'AND' | 'OR';
export type FilterScalar = string | number | boolean;
export type FilterValue = FilterScalar | FilterScalar[];

export interface FilterCondition {
  field: string;
  op: FilterOperator;
  value?: FilterValue;
  text_comparison?: TextComparison;
  trim_whitespace?: boolean;
}

export interface FilterGroup {
  id: string;
  filters: FilterCondition[];
  combinator: Combinator;
}

/** Which request shape the groups came from; decides the JSON paths in issues. */
export type FilterInputForm = 'filters' | 'filter_groups';

export type FilterIssueCode =
  | 'INVALID_FILTER_SHAPE'
  | 'UNKNOWN_FILTER_FIELD'
  | 'FIELD_NOT_FILTERABLE'
  | 'UNSUPPORTED_FILTER_OPERATOR'
  | 'UNSUPPORTED_TEXT_COMPARISON'
  | 'INVALID_FILTER_VALUE'
  | 'INVALID_ENUM_VALUE'
  | 'AMBIGUOUS_ENUM_VALUE';

/** One entry of the error envelope's `issues` array (spec §7). */
export interface FilterIssue {
  path: string;
  code: FilterIssueCode;
  message: string;
  suggestions: string[];
}

/** A bound parameter value; every member is accepted by @duckdb/node-api `run(sql, values)`. */
export type FilterParam = string | number | boolean | bigint;

/** Largest IN / NOT IN / ARRAY_CONTAINS_ANY list: keeps statements and plans a sane size. */
export const MAX_LIST_VALUES = 1000;

/** Records one issue found while validating (used by the validators of conditions and values). */
export type Add = (path: string, code: FilterIssueCode, message: string, suggestions?: string[]) => void;
