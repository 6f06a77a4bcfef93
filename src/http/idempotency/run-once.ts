/**
 * One idempotency rule for every adapter (REST, MCP tools, A2A skills): an operation whose declaration
 * opts in runs once per key, keyed by operation and user (another user's key is a different key, never
 * their response) with the body hashed, so a retry over any transport replays the first outcome.
 * Without a key, an opt-in or a caller, the handler simply runs.
 */
import { isReplied, type Operation, type OperationContext } from '../../core/operation.ts';
import type { IdempotencyService } from './service.ts';

export interface Outcome {
  statusCode: number;
  body: unknown;
  replayed?: boolean;
}

export async function runOnce(
  op: Operation,
  ctx: OperationContext,
  input: Parameters<Operation['handler']>[1],
  o: { service?: IdempotencyService; key?: string; body: unknown },
): Promise<Outcome> {
  const execute = async (): Promise<Outcome> => {
    const result = await op.handler(ctx, input);
    return isReplied(result) ? { statusCode: result.status, body: result.body } : { statusCode: op.status, body: result };
  };
  if (!op.idempotency || !o.service || o.key === undefined || !ctx.caller) return execute();
  const { replay } = op.idempotency;
  return o.service.run({
    orgId: ctx.caller.orgId,
    scope: `${op.id}|${ctx.caller.userId}`,
    key: o.key,
    body: o.body ?? null,
    execute,
    refresh: replay ? (stored) => replay(stored as never, ctx) : undefined,
  });
}
