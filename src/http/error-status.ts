/**
 * The HTTP status of every domain error code, read from the code registry (src/core/error-codes.ts).
 */
import { ERROR_CODES, type ErrorCode } from '../core/error-codes.ts';

export const HTTP_STATUS = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, e]) => [code, e.status])) as Record<
  ErrorCode,
  number
>;

export const httpStatusOf = (code: ErrorCode): number => HTTP_STATUS[code];
