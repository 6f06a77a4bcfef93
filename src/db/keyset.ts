/**
 * The keyset predicate of every newest-first list: rows strictly after the cursor key in
 * (timestamp desc, id desc) order. One definition, so every list pages the same way.
 */
import type { ExpressionBuilder, ExpressionWrapper, SqlBool } from 'kysely';
import type { CursorKey } from '../core/page.ts';

export function afterKey<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  key: CursorKey,
  columns: { at: string; id: string },
): ExpressionWrapper<DB, TB, SqlBool> {
  const at = eb.ref(columns.at as never);
  const id = eb.ref(columns.id as never);
  return eb.or([eb(at, '<', key.at as never), eb.and([eb(at, '=', key.at as never), eb(id, '<', key.id as never)])]);
}
