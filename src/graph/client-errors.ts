/**
 * The one place warehouse failures become client errors (issue #33: behind the door). Engine messages
 * never reach a client: a statement past its timeout is 503 QUERY_TIMEOUT with the asking area's next
 * step, typed unavailability maps to 502/503 with our own text, anything else is rethrown for the 500
 * handler.
 */
import { CommonErrors, DomainError } from '../core/errors.ts';
import { WarehouseTimeoutError, WarehouseUnavailableError } from './errors.ts';

/** The next step of a timed-out discovery question; other areas give their own. */
const NARROW_THE_QUESTION = 'Narrow the filters (fewer conditions, fewer OR groups) or drop group_by, then ask again.';

export function noReleaseError(cause?: unknown): DomainError {
  return new DomainError('DATA_RELEASE_UNAVAILABLE', 'No data release has been published yet.', {
    cause,
    retryAfterSeconds: 60,
    nextStep: 'The identity graph is being loaded; retry in a minute or two.',
  });
}

export function releaseMissingError(cause?: unknown): DomainError {
  return new DomainError('BQ_TABLE_MISSING', 'The data this request needs is not available (the data release or set may have expired).', {
    cause,
    nextStep: 'Retry shortly; if it persists, contact support with the request_id.',
  });
}

/** Maps a warehouse failure to a client-safe domain error, `nextStep` telling what to change; returns other errors unchanged. */
export function toClientError(err: unknown, nextStep = NARROW_THE_QUESTION): unknown {
  if (err instanceof WarehouseTimeoutError) return CommonErrors.queryTimeout(err.timeoutMs, { cause: err, nextStep });
  if (err instanceof WarehouseUnavailableError) return err.kind === 'no_release' ? noReleaseError(err) : releaseMissingError(err);
  return err;
}

/** Runs `fn`, rethrowing a warehouse failure as the client-safe error. */
export async function withWarehouse<T>(fn: () => Promise<T>, nextStep?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toClientError(err, nextStep);
  }
}
