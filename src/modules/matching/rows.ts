/**
 * Request-level row checks and per-row shaping. row_id problems reject the whole request before
 * anything is reserved or matched (spec 7: DUPLICATE_ROW_ID, INVALID_ROW_ID); every other bad value is
 * one row's warning.
 */
import { DomainError, type ErrorIssue } from '../../core/errors.ts';
import { ECHO_FIELDS, INPUT_FIELDS, MAX_RECORDS } from './schemas.ts';

export function checkRecords(records: readonly Record<string, unknown>[]): string[] {
  if (records.length > MAX_RECORDS) {
    throw new DomainError(
      'TOO_MANY_RECORDS',
      `A micro-batch match takes at most ${MAX_RECORDS} records; got ${records.length}. Nothing was matched or charged.`,
      {
        details: { max_records: MAX_RECORDS, record_count: records.length },
        nextStep: `Split the list into batches of ${MAX_RECORDS}, or use POST /v1/match/file for large lists.`,
      },
    );
  }
  const invalid: ErrorIssue[] = [];
  const rowIds = records.map((r, i) => {
    const v = r.row_id;
    if (v === undefined) return String(i + 1);
    if (typeof v !== 'string' || v.trim() === '') {
      invalid.push({
        path: `$.records[${i}].row_id`,
        code: 'INVALID_ROW_ID',
        message: 'row_id must be a string with at least one non-whitespace character',
        suggestions: [],
      });
      return '';
    }
    return v;
  });
  if (invalid.length > 0) {
    throw new DomainError(
      'INVALID_ROW_ID',
      `Invalid row_id at ${invalid.map((x) => x.path).join(', ')}; the whole request was rejected and nothing was charged.`,
      {
        issues: invalid,
        nextStep: 'Give every row_id at least one non-whitespace character, or omit it to use the row position.',
      },
    );
  }
  // Defaults count too: a row without row_id at position 2 collides with another row's "2".
  const seen = new Map<string, number>();
  const dupes: ErrorIssue[] = [];
  rowIds.forEach((id, i) => {
    const first = seen.get(id);
    if (first === undefined) seen.set(id, i);
    else
      dupes.push({
        path: `$.records[${i}].row_id`,
        code: 'DUPLICATE_ROW_ID',
        message: `row_id "${id}" is also used by records[${first}]`,
        suggestions: [],
      });
  });
  if (dupes.length > 0) {
    throw new DomainError(
      'DUPLICATE_ROW_ID',
      `row_id values must be unique across the request (${dupes.length} duplicate(s)); nothing was charged.`,
      {
        issues: dupes,
        nextStep: 'Make every row_id unique (a row without row_id uses its 1-indexed position).',
      },
    );
  }
  return rowIds;
}

/** The input attributes echoed back unchanged (only the documented ones; the response schema whitelists them). */
export function echoOf(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of ECHO_FIELDS) if (record[f] !== undefined) out[f] = record[f];
  return out;
}

export function unknownFieldWarnings(record: Record<string, unknown>) {
  return Object.keys(record)
    .filter((k) => !INPUT_FIELDS.has(k))
    .map((k) => ({ field: k, code: 'unknown_field', message: `"${k}" is not a match input attribute; ignored` }));
}
