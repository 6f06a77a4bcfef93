/**
 * Compiles validated filter groups into a DuckDB boolean expression for a WHERE clause.
 *
 * Parameter style: positional `$1, $2, ...`, bound by @duckdb/node-api as
 * `connection.run(sql, params)` (an array binds `$k` to `params[k-1]`). `paramOffset` shifts the
 * numbering so a caller that already uses `$1..$n` passes `paramOffset: n` and appends our params
 * after its own.
 *
 * Every input value is a bound parameter; the only identifiers in the SQL are catalog column names
 * and the caller's table alias, quoted. Input text never reaches the SQL string.
 */
import { toDisjunctiveBranches } from './branches.ts';
import { indexCatalog, type FilterCatalog } from './catalog-index.ts';
import { compileCondition, ParamList } from './compile-condition.ts';
import { quoteIdent } from './text.ts';
import type { FilterGroup, FilterParam } from './types.ts';

export interface CompileOptions {
  /** Qualifies every column as `"alias"."column"`. */
  tableAlias?: string;
  /** Number of parameters the caller already uses; ours start at `$${paramOffset + 1}`. */
  paramOffset?: number;
}

export interface CompiledFilter {
  /** A parenthesised boolean expression; `TRUE` for an empty group list. */
  sql: string;
  /** Values for `$${offset+1}...`, in order. */
  params: FilterParam[];
}

/**
 * Throws on input that validateFilterGroups would have rejected (unknown field, operator the field
 * does not allow, value outside a bitmask vocabulary): callers must validate first, so reaching
 * that is a programming error, not a client error.
 */
export function compileFilterGroups(groups: readonly FilterGroup[], catalog: FilterCatalog, opts: CompileOptions = {}): CompiledFilter {
  const offset = opts.paramOffset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new Error(`paramOffset must be a non-negative integer, got ${offset}`);
  const params = new ParamList(offset);
  const index = indexCatalog(catalog);
  const qualifier = opts.tableAlias !== undefined ? `${quoteIdent(opts.tableAlias)}.` : '';
  const branches = toDisjunctiveBranches(groups);
  if (branches.length === 0) return { sql: 'TRUE', params: [] };
  const sqlBranches = branches.map((branch) => {
    const conjuncts = branch.map((g) => {
      if (g.filters.length === 0) throw new Error(`filter group ${g.id} has no filters`);
      return `(${g.filters
        .map((c) => {
          const field = index.resolve(c.field);
          if (!field) throw new Error(`unknown filter field ${c.field}`);
          return compileCondition(c, field, qualifier + quoteIdent(field.storage.column), params);
        })
        .join(' AND ')})`;
    });
    return conjuncts.length === 1 ? conjuncts[0]! : `(${conjuncts.join(' AND ')})`;
  });
  return { sql: `(${sqlBranches.join(' OR ')})`, params: params.values };
}
