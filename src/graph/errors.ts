/**
 * Typed warehouse errors. The HTTP layer maps `release_missing` to 502 BQ_TABLE_MISSING and
 * `no_release` to 503 (registry not populated yet). `message` is always ours; the engine's own
 * message stays in `cause` so it never reaches a customer.
 */
export type WarehouseUnavailableKind = 'release_missing' | 'no_release';

export class WarehouseUnavailableError extends Error {
  readonly kind: WarehouseUnavailableKind;
  constructor(kind: WarehouseUnavailableKind, options?: { cause?: unknown }) {
    super(
      kind === 'no_release' ? 'No data release has been published yet; retry shortly.' : 'The current data release is not available.',
      options,
    );
    this.name = 'WarehouseUnavailableError';
    this.kind = kind;
  }
}

/** A release step (minor, major, import) that cannot run; the message is meant for the operator. */
export class GraphReleaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GraphReleaseError';
  }
}

/** An operator's import file or mapping is unusable; `issues` lists every problem found, one per line. */
export class GraphImportError extends GraphReleaseError {
  readonly issues: string[];
  constructor(issues: string[], options?: { cause?: unknown }) {
    super(`Cannot import the person file:\n- ${issues.join('\n- ')}`, options);
    this.name = 'GraphImportError';
    this.issues = issues;
  }
}

/** A warehouse statement ran past its time limit and was interrupted (the engine stopped it). */
export class WarehouseTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`The statement ran past ${timeoutMs} ms and was interrupted.`, options);
    this.name = 'WarehouseTimeoutError';
  }
}
