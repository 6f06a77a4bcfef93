/**
 * Keyset cursors for the newest-first lists. A cursor carries the sort key of the last row shown
 * (not a row id to look up), so it survives the row being deleted, archived or unlinked, and the scope
 * it was issued for, so a cursor from another list (or another campaign) is refused.
 */
import { AppError } from '../../http/errors.ts';

export interface CursorKey {
  /** Sort timestamp (created_at, or linked_at for a campaign's audiences). */
  at: Date;
  id: string;
}

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

function invalidCursor(message: string): AppError {
  return new AppError('INVALID_CURSOR', 400, message, {
    nextStep: 'Send the next_cursor of the previous page with the same filters, or omit cursor to start over.',
  });
}
