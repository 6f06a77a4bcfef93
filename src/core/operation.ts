/**
 * One declaration per operation of the API: what it is called, who may call it, what it takes and
 * gives, which errors it can answer, what it does to the world, and a worked example. REST routes,
 * the OpenAPI document, MCP tools and A2A skills are all produced from these declarations; the handler
 * is a thin call into the area's service. Nothing here knows a transport: the REST binding (method and
 * path) is data that the HTTP adapter reads.
 */
import type { Static, TSchema } from 'typebox';
import type { Caller } from './caller.ts';
import { CommonErrors } from './errors.ts';
import type { ErrorCode } from './error-codes.ts';
import type { Scope } from './scopes.ts';

/** What a call does to the world: MCP tool annotations and agent confirmation rules read this. */
export type Effect = 'read' | 'write' | 'spend';

/** `public`: no credential (token exchange, signed URLs). `authenticated`: any valid bearer. */
export type Access = Scope | 'public' | 'authenticated';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OperationContext {
  /** Null only for `public` operations. */
  caller: Caller | null;
  requestId: string;
  /** Structured log of the request (pino-compatible). */
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

export interface ExampleRequest {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A worked example. The examples test sends `request` as written (to fixture resources with the ids it
 * uses) and checks the answer has `response.status` and matches the declared schema.
 */
export interface OperationExample {
  name: string;
  summary: string;
  request: ExampleRequest;
  response: { status: number; body?: unknown };
}

export interface InputSchemas {
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  headers?: TSchema;
}

type StaticOr<T, Fallback> = T extends TSchema ? Static<T> : Fallback;

export interface OperationInput<I extends InputSchemas> {
  params: StaticOr<I['params'], Record<string, never>>;
  query: StaticOr<I['query'], Record<string, never>>;
  body: StaticOr<I['body'], undefined>;
  headers: StaticOr<I['headers'], Record<string, string | undefined>>;
  /** Operations declared with `rawBody`: the request bytes as a stream (never buffered). */
  raw?: NodeJS.ReadableStream;
}

const REPLY = Symbol('reply');

/** A result with an explicit status, for operations that answer more than one success status. */
export interface Replied<S extends number, B> {
  readonly [REPLY]: true;
  readonly status: S;
  readonly body: B;
}

export function reply<S extends number, B>(status: S, body: B): Replied<S, B> {
  return { [REPLY]: true, status, body };
}

export const isReplied = (value: unknown): value is Replied<number, unknown> =>
  typeof value === 'object' && value !== null && (value as { [REPLY]?: boolean })[REPLY] === true;

const FILE = Symbol('file');

/** A file answered as it is (signed downloads): the transport streams it with these headers. */
export interface FileBody {
  readonly [FILE]: true;
  readonly path: string;
  readonly contentType: string;
  readonly fileName: string;
  readonly bytes: number;
}

export function fileBody(f: { path: string; contentType: string; fileName: string; bytes: number }): FileBody {
  return { [FILE]: true, ...f };
}

export const isFileBody = (value: unknown): value is FileBody =>
  typeof value === 'object' && value !== null && (value as { [FILE]?: boolean })[FILE] === true;

type Responses = Record<number, TSchema>;

/** What a handler may return: the body of the first declared status, or an explicit reply of any. */
export type HandlerResult<R extends Responses, S extends keyof R & number> =
  Static<R[S]> | { [K in keyof R & number]: Replied<K, Static<R[K]>> }[keyof R & number];

export interface IdempotencyOption<Body> {
  /** Rebuilds the parts of a stored response that expire (signed URLs) when it is replayed. */
  replay?: (stored: Body, ctx: OperationContext) => Promise<Body>;
}

/** How an operation appears to agents (MCP tools, A2A skills). */
export interface AgentOption<I extends InputSchemas = InputSchemas> {
  /** Tool name (snake_case); default: the operationId in snake_case. */
  tool?: string;
  description?: string;
  /**
   * `spend` operations: what the call would cost, answered instead of running it when an agent calls
   * without `confirm: true`. It must change nothing.
   */
  estimate?: (ctx: OperationContext, input: OperationInput<I>) => Promise<Record<string, unknown>>;
  /**
   * Operations that start long work (a delivery, a file match, a model segment): how an agent task
   * follows it after the call answered. The task's state is derived from the resource on every read,
   * so the follow-up survives a restart (nothing of it lives in process memory).
   */
  follow?: AgentFollow;
}

/** Where the work a call started stands: still running, done, or failed (with the reason shown to the agent). */
export type FollowProgress = { state: 'working' | 'completed' } | { state: 'failed'; reason: string };

export interface AgentFollow {
  /** Re-reads the resource the call answered (its response body), as it stands now. */
  read: (ctx: OperationContext, answered: any) => Promise<unknown>;
  /** The state of that resource (the answer itself, or a later read). */
  progress: (resource: any) => FollowProgress;
}

export interface OperationSpec<
  I extends InputSchemas = InputSchemas,
  R extends Responses = Responses,
  S extends keyof R & number = keyof R & number,
> {
  /** operationId: lowerCamelCase, unique. MCP tool and A2A skill names derive from it. */
  id: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/segments/{id}`. */
  path: string;
  tags: string[];
  summary: string;
  description: string;
  access: Access;
  effect: Effect;
  input: I;
  /** The success status answered when the handler returns a plain body. */
  status: S;
  /** Success responses by status. Error responses are derived from `errors`. */
  responses: R;
  /** Codes this operation can answer besides the ones every operation of its access can (auth, throttling, 500). */
  errors: ErrorCode[];
  /** Opt-in Idempotency-Key handling (one mechanism for every operation that declares it). */
  idempotency?: IdempotencyOption<Static<R[S]>>;
  /** Agents: false keeps the operation out of MCP tools and A2A skills. */
  agent?: false | AgentOption<I>;
  examples: OperationExample[];
  /** Request body size limit in bytes (default: the app's). */
  bodyLimit?: number;
  /** The body is raw bytes of any content type, streamed to the handler as `input.raw` (signed uploads). */
  rawBody?: { description: string };
  handler: (ctx: OperationContext, input: OperationInput<I>) => Promise<HandlerResult<R, S>>;
}

/** Type-checks a declaration: the handler's result must fit the declared response schemas. */
export function defineOperation<const I extends InputSchemas, const R extends Responses, const S extends keyof R & number>(
  spec: OperationSpec<I, R, S>,
): Operation {
  return spec as unknown as Operation;
}

/** A declaration with its types erased, as adapters see it. */
export type Operation = OperationSpec<InputSchemas, Responses, number>;

/** The caller of an operation that is not public (the transport authenticated it). */
export function callerOf(ctx: OperationContext): Caller {
  if (!ctx.caller) throw CommonErrors.tokenInvalid();
  return ctx.caller;
}
