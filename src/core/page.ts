/**
 * One cursor and page helper for every newest-first list. A cursor carries the sort key of the last
 * row shown (not a row id to look up), so it survives that row being deleted, archived or unlinked, and
 * the scope it was issued for, so a cursor from another list (or another campaign) is refused.
 * Stores fetch `limit + 1` rows after the key (src/db/keyset.ts); `toPage` cuts and makes the next cursor.
 */
import { DomainError } from './errors.ts';

export interface CursorKey {
  /** Sort timestamp (created_at, or linked_at for a campaign's audiences). */
  at: Date;
  id: string;
}

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export function encodeCursor(scope: string, key: CursorKey): string {
  return Buffer.from(JSON.stringify({ s: scope, t: key.at.toISOString(), i: key.id })).toString('base64url');
}

export function decodeCursor(scope: string, cursor: string): CursorKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('The cursor is not one this service issued.');
  }
  const p = parsed as { s?: unknown; t?: unknown; i?: unknown };
  if (typeof p?.s !== 'string' || typeof p.t !== 'string' || typeof p.i !== 'string' || Number.isNaN(Date.parse(p.t))) {
    throw invalidCursor('The cursor is not one this service issued.');
  }
  if (p.s !== scope) throw invalidCursor('The cursor was issued for a different list or filter (e.g. another campaign_id).');
  return { at: new Date(p.t), id: p.i };
}

/** What a store needs to fetch one page: the key to start after and how many rows to read. */
export function pageQuery(scope: string, request: PageRequest): { after: CursorKey | null; limit: number; fetch: number } {
  const limit = request.limit ?? DEFAULT_PAGE_SIZE;
  return { after: request.cursor ? decodeCursor(scope, request.cursor) : null, limit, fetch: limit + 1 };
}

/** Cuts the `limit + 1` rows a store returned into a page and the cursor of the next one. */
export function toPage<R, T>(scope: string, rows: R[], limit: number, keyOf: (row: R) => CursorKey, present: (row: R) => T): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return {
    items: shown.map(present),
    next_cursor: rows.length > limit && last !== undefined ? encodeCursor(scope, keyOf(last)) : null,
  };
}

function invalidCursor(message: string): DomainError {
  return new DomainError('INVALID_CURSOR', message, {
    nextStep: 'Send the next_cursor of the previous page with the same filters, or omit cursor to start over.',
  });
}
