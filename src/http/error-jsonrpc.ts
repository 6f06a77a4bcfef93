/**
 * The JSON-RPC error code of every domain error code, for the agent endpoints (MCP transport refusals,
 * A2A JSON-RPC errors), derived from the HTTP status so a new code needs no second entry
 * (docs/decisions/035). The section 7 envelope rides along in `error.data`.
 */
import type { ErrorCode } from '../core/error-codes.ts';
import { HTTP_STATUS } from './error-status.ts';

/** JSON-RPC 2.0 and A2A codes used by the endpoints themselves. */
export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** A2A: the task does not exist (or belongs to another organization). */
  TASK_NOT_FOUND: -32001,
  /** A2A: the task is already in a terminal state. */
  TASK_NOT_CANCELABLE: -32002,
  /** A2A: push notifications are not supported (the agent card says pushNotifications: false). */
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  /** A2A: the operation is not supported. */
  UNSUPPORTED_OPERATION: -32004,
  /** A2A: the A2A-Version header names a version this endpoint does not speak. */
  VERSION_NOT_SUPPORTED: -32009,
  /** Implementation-defined (server error range): authentication, permission, missing resource, conflict, throttling. */
  UNAUTHENTICATED: -32010,
  FORBIDDEN: -32011,
  NOT_FOUND: -32012,
  CONFLICT: -32013,
  RATE_LIMITED: -32014,
} as const;

export function jsonRpcCodeOf(code: ErrorCode): number {
  const status = HTTP_STATUS[code];
  if (status === 401) return JSONRPC.UNAUTHENTICATED;
  if (status === 403) return JSONRPC.FORBIDDEN;
  if (status === 404 || status === 410) return JSONRPC.NOT_FOUND;
  if (status === 409) return JSONRPC.CONFLICT;
  if (status === 429) return JSONRPC.RATE_LIMITED;
  if (status >= 400 && status < 500) return JSONRPC.INVALID_PARAMS;
  return JSONRPC.INTERNAL_ERROR;
}
