/** Errors of delivery destinations: plain Error subclasses with a stable `code` the module layer maps. */

export class DestinationConfigError extends Error {
  readonly code = 'INVALID_DESTINATION_CONFIG';
  constructor(readonly issues: string[]) {
    super(`invalid destination configuration: ${issues.join('; ')}`);
    this.name = 'DestinationConfigError';
  }
}

/** The outbound-target policy refused the host (the lookup failed for a reason other than DNS). */
export class DestinationBlockedError extends Error {
  readonly code = 'DESTINATION_BLOCKED';
  constructor(
    readonly host: string,
    options?: { cause?: unknown },
  ) {
    super(`connections to ${host} are not allowed`, options);
    this.name = 'DestinationBlockedError';
  }
}

/** Not reachable: DNS failure, refused or timed-out connection, TLS or protocol failure. */
export class DestinationUnreachableError extends Error {
  readonly code = 'DESTINATION_UNREACHABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DestinationUnreachableError';
  }
}

/** The destination rejected the credentials. */
export class DestinationAuthError extends Error {
  readonly code = 'DESTINATION_AUTH_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DestinationAuthError';
  }
}

/** Connected and authenticated, but the folder or bucket is missing or a write failed. */
export class DestinationWriteError extends Error {
  readonly code = 'DESTINATION_WRITE_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DestinationWriteError';
  }
}

export type DestinationError =
  DestinationConfigError | DestinationBlockedError | DestinationUnreachableError | DestinationAuthError | DestinationWriteError;
