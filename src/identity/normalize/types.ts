/**
 * Shared result shapes for the normalizers. Normalizers never throw on bad data: a value that
 * cannot be used for matching comes back as `value: null` with a machine-readable code, so the
 * per-record layer can drop it and report it in the row's `warnings` array.
 */
export interface NormalizeIssue {
  /** Stable snake_case code, e.g. `email_malformed`. */
  code: string;
  message: string;
}

export interface FieldWarning extends NormalizeIssue {
  /** Input field path, e.g. `email`, `emails[1]`, `addresses[0].state`. */
  field: string;
}

export interface Normalized<T> {
  value: T | null;
  /** Set when the value was rejected (value null) or repaired in a way worth reporting. */
  warning?: NormalizeIssue;
}

export function ok<T>(value: T, warning?: NormalizeIssue): Normalized<T> {
  return warning ? { value, warning } : { value };
}

export function fail<T>(code: string, message: string): Normalized<T> {
  return { value: null, warning: { code, message } };
}
