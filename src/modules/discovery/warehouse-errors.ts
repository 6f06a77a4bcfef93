/**
 * The narrow view of the warehouse client that discovery, catalog and data-release use, and the one
 * place warehouse failures become client errors. Engine messages never reach a client: typed
 * unavailability maps to 502/503 with our own text, anything else is rethrown for the 500 handler.
 */
import { WarehouseUnavailableError } from '../../graph/errors.ts';
import type { ReleaseInfo } from '../../graph/releases.ts';
import { AppError } from '../../http/errors.ts';

export interface WarehouseReader {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** The release queries currently run against; throws WarehouseUnavailableError when there is none. */
  release(): ReleaseInfo | Promise<ReleaseInfo>;
}

export function noReleaseError(cause?: unknown): AppError {
  return new AppError('DATA_RELEASE_UNAVAILABLE', 503, 'No data release has been published yet.', {
    cause,
    details: { retry_after_seconds: 60 },
    headers: { 'retry-after': '60' },
    nextStep: 'The identity graph is being loaded; retry in a minute or two.',
  });
}

export function releaseMissingError(cause?: unknown): AppError {
  return new AppError('BQ_TABLE_MISSING', 502, 'The data this request needs is not available (the data release or set may have expired).', {
    cause,
    nextStep: 'Retry shortly; if it persists, contact support with the request_id.',
  });
}

/** Maps a warehouse failure to a client-safe AppError; returns other errors unchanged. */
export function toClientError(err: unknown): unknown {
  if (err instanceof WarehouseUnavailableError) return err.kind === 'no_release' ? noReleaseError(err) : releaseMissingError(err);
  return err;
}

/** Runs `fn`, rethrowing warehouse unavailability as the client-safe error. */
export async function withWarehouse<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toClientError(err);
  }
}
