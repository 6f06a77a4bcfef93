/** Errors of the export engine: plain Error subclasses with a stable `code` the module layer maps. */

export class ExportRequestError extends Error {
  readonly code = 'INVALID_EXPORT_REQUEST';
  constructor(message: string) {
    super(message);
    this.name = 'ExportRequestError';
  }
}

export class ExportFailedError extends Error {
  readonly code = 'EXPORT_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExportFailedError';
  }
}
