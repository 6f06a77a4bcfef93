/**
 * The operation declarations as agent tools: the one derivation the MCP and A2A adapters share
 * (docs/decisions/013 and 034). A tool's name is the declaration's `agent.tool` (or its operationId in
 * snake_case), its description the declaration's, its input one JSON Schema object merging the path,
 * query and body properties, and a call runs the declaration's handler with the same access check,
 * the same Ajv settings as REST and the same domain errors. No rule lives here.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Caller } from '../core/caller.ts';
import { CommonErrors, type DomainError, type ErrorIssue } from '../core/errors.ts';
import { type Operation, type OperationContext } from '../core/operation.ts';
import { runOnce } from './idempotency/run-once.ts';
import { hasScope, type Scope } from '../core/scopes.ts';
import { envelope, toDomainError } from './error-handler.ts';
import type { IdempotencyService } from './idempotency/service.ts';

type JsonObject = Record<string, unknown>;

export interface AgentTool {
  name: string;
  op: Operation;
  /** The scope a call needs, or null for any valid bearer. */
  scope: Scope | null;
  description: string;
  /** One JSON Schema object: path parameters, query and body properties side by side (and `confirm` for spend). */
  inputSchema: JsonObject;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** Which input part each argument belongs to. */
  parts: Map<string, 'params' | 'query' | 'body'>;
  validate: ValidateFunction;
}

export const snakeCase = (id: string) => id.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The same Ajv settings as REST bodies (src/http/validation.ts): strict types, every error, defaults applied. */
function agentAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, strict: false, coerceTypes: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

const CONFIRM = {
  type: 'boolean',
  description:
    'This call spends money. Without confirm: true it changes nothing and answers what it would cost; call again with confirm: true to run it.',
};

/** The argument (and the `Idempotency-Key` header's twin) of tools whose declaration opts into idempotency. */
export const IDEMPOTENCY_ARG = 'idempotency_key';
const IDEMPOTENCY_KEY = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    'Send the same key when you retry this call: within 24 hours the first answer is replayed and the work is not done again (same key with other arguments: IDEMPOTENCY_KEY_CONFLICT).',
};

function mergeInput(op: Operation): { schema: JsonObject; parts: AgentTool['parts'] } {
  const properties: JsonObject = {};
  const required: string[] = [];
  const parts: AgentTool['parts'] = new Map();
  let closed = true;
  for (const part of ['params', 'query', 'body'] as const) {
    const schema = op.input[part] as JsonObject | undefined;
    if (!schema) continue;
    if (schema.type !== 'object' || !schema.properties) {
      throw new Error(`Operation ${op.id}: its ${part} is not an object schema, so it cannot become a tool input (declare agent: false)`);
    }
    if (schema.additionalProperties !== false) closed = false;
    for (const [name, property] of Object.entries(schema.properties as JsonObject)) {
      if (parts.has(name)) throw new Error(`Operation ${op.id}: input "${name}" appears in both ${parts.get(name)} and ${part}`);
      parts.set(name, part);
      properties[name] = property;
    }
    for (const name of (schema.required as string[] | undefined) ?? []) required.push(name);
  }
  if (op.effect === 'spend') properties.confirm = CONFIRM;
  if (op.idempotency) {
    if (parts.has(IDEMPOTENCY_ARG))
      throw new Error(`Operation ${op.id}: input "${IDEMPOTENCY_ARG}" clashes with the idempotency key argument`);
    properties[IDEMPOTENCY_ARG] = IDEMPOTENCY_KEY;
  }
  return {
    schema: { type: 'object', properties, ...(required.length ? { required } : {}), ...(closed ? { additionalProperties: false } : {}) },
    parts,
  };
}

/** Every declaration offered to agents, as a tool. A name given twice is a startup error. */
export function agentTools(operations: readonly Operation[]): AgentTool[] {
  const ajv = agentAjv();
  const tools: AgentTool[] = [];
  const names = new Set<string>();
  for (const op of operations) {
    if (op.agent === false || op.access === 'public' || op.rawBody) continue;
    const name = op.agent?.tool ?? snakeCase(op.id);
    if (names.has(name)) throw new Error(`Agent tool name ${name} is declared twice`);
    names.add(name);
    const { schema, parts } = mergeInput(op);
    const spend = op.effect === 'spend';
    tools.push({
      name,
      op,
      scope: op.access === 'authenticated' ? null : op.access,
      description: [
        op.agent?.description ?? `${op.summary}. ${op.description}`,
        `Needs scope: ${op.access === 'authenticated' ? 'any' : op.access}.`,
        spend ? 'Spends money: call without confirm to get the cost, then with confirm: true.' : '',
      ]
        .filter(Boolean)
        .join(' '),
      inputSchema: schema,
      annotations: {
        readOnlyHint: op.effect === 'read',
        destructiveHint: op.method === 'DELETE',
        idempotentHint: op.effect === 'read' || op.method === 'PUT' || op.method === 'DELETE',
        openWorldHint: false,
      },
      parts,
      validate: ajv.compile(schema),
    });
  }
  return tools;
}

export const toolAllowed = (tool: AgentTool, scopes: readonly string[]) => tool.scope === null || hasScope(scopes, tool.scope);

function issuesOf(errors: ErrorObject[] | null | undefined): ErrorIssue[] {
  return (errors ?? []).map((e) => {
    const extra =
      (e.params as { additionalProperty?: string; missingProperty?: string }).additionalProperty ??
      (e.params as { missingProperty?: string }).missingProperty;
    const path = `$${e.instancePath
      .split('/')
      .filter(Boolean)
      .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
      .join('')}${extra ? `.${extra}` : ''}`;
    const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
    return {
      path,
      code: e.keyword === 'enum' ? 'INVALID_ENUM_VALUE' : 'INVALID_VALUE',
      message: extra && e.keyword === 'additionalProperties' ? `unknown property "${extra}"` : (e.message ?? 'invalid value'),
      suggestions: allowed ? allowed.map(String) : [],
    };
  });
}

export type ToolOutcome =
  /** Ran: the declared status and body. `estimate`: a spend call without confirm, which ran nothing. */
  | { ok: true; status: number; body: unknown; estimate?: undefined; replayed?: boolean }
  | { ok: true; status: 0; body?: undefined; estimate: JsonObject; replayed?: undefined }
  | { ok: false; error: DomainError };

export interface ToolCall {
  caller: Caller;
  requestId: string;
  log: OperationContext['log'];
  /** The Idempotency-Key mechanism of REST, and a key from outside the arguments (the MCP request's `Idempotency-Key` header). */
  idempotency?: { service: IdempotencyService; key?: string };
}

/**
 * Runs one tool call: the scope check of the declaration's access (SCOPE_REQUIRED, as REST), input
 * validation (INVALID_REQUEST with issues, as REST), the spend confirmation, then the handler.
 */
export async function callTool(tool: AgentTool, rawArgs: unknown, call: ToolCall): Promise<ToolOutcome> {
  try {
    if (!toolAllowed(tool, call.caller.scopes)) throw CommonErrors.scopeRequired(tool.scope!);
    const args = structuredClone((rawArgs ?? {}) as JsonObject);
    if (!tool.validate(args)) {
      const issues = issuesOf(tool.validate.errors);
      throw CommonErrors.invalidRequest(
        `Invalid request: ${issues[0] ? `${issues[0].path}: ${issues[0].message}` : 'invalid arguments'}`,
        issues,
      );
    }
    const { confirm, [IDEMPOTENCY_ARG]: argKey, ...rest } = args;
    const input: { params: JsonObject; query: JsonObject; body: JsonObject | undefined; headers: JsonObject } = {
      params: {},
      query: {},
      body: undefined,
      headers: {},
    };
    if (tool.op.input.body) input.body = {};
    for (const [name, value] of Object.entries(rest)) {
      const part = tool.parts.get(name)!;
      (input[part] ??= {})[name] = value;
    }
    const ctx: OperationContext = { caller: call.caller, requestId: call.requestId, log: call.log };
    if (tool.op.effect === 'spend' && confirm !== true) {
      const estimate = tool.op.agent ? await tool.op.agent.estimate?.(ctx, input as never) : undefined;
      return {
        ok: true,
        status: 0,
        estimate: {
          confirmation_required: true,
          tool: tool.name,
          ...(estimate ?? {}),
          next_step: 'Call again with confirm: true to run it.',
        },
      };
    }
    const key = typeof argKey === 'string' ? argKey : call.idempotency?.key;
    const done = await runOnce(tool.op, ctx, input as never, { service: call.idempotency?.service, key, body: input.body });
    return { ok: true, status: done.statusCode, body: done.body, ...(done.replayed !== undefined ? { replayed: done.replayed } : {}) };
  } catch (error) {
    const domainError = toDomainError(error);
    if (domainError.code === 'INTERNAL_ERROR') call.log.error({ err: error, tool: tool.name }, 'agent tool call failed');
    return { ok: false, error: domainError };
  }
}

export { envelope };
