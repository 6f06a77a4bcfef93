/**
 * The tool-protocol endpoint at {mcp_url}: MCP Streamable HTTP served by the official SDK, stateless
 * (revision 2026-07-28, and 2025-era clients through the SDK's stateless fallback). Its tools are the
 * operation declarations (src/http/agent-tools.ts): one adapter, no per-tool code. Before the SDK sees
 * a message this route checks the Origin, the bearer (an OAuth token must be bound to {mcp_url}; 401
 * names the resource metadata) and, for tools/call, the declaration's scope (403 insufficient_scope
 * with WWW-Authenticate, so a client can step up). Tools are listed only when the token holds their scope.
 */
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, type AuthInfo, type CallToolResult, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../../core/caller.ts';
import { CommonErrors } from '../../core/errors.ts';
import type { Operation } from '../../core/operation.ts';
import { bearerChallenge, resourceMetadataUrl } from '../../modules/oauth/index.ts';
import { allowedOrigins, authenticateOrRefuse, refuseBadOrigin, type ResourceAuthenticate } from '../agent-guard.ts';
import { agentTools, callTool, envelope, toolAllowed, type AgentTool, type ToolCall } from '../agent-tools.ts';
import type { IdempotencyService } from '../idempotency/service.ts';
import { jsonRpcCodeOf } from '../error-jsonrpc.ts';

export interface McpDeps {
  /** {mcp_url}: the resource tokens must be bound to; the route is its path. */
  resource: string;
  operations: readonly Operation[];
  authenticate: ResourceAuthenticate;
  /** Origins besides the resource's own that browser-based clients may call from. */
  origins: readonly string[];
  version: string;
  /** REST's Idempotency-Key mechanism: tools of declarations that opt into it take `idempotency_key` (or the header). */
  idempotency: IdempotencyService;
}

const INSTRUCTIONS =
  'Audience data over an identity graph. Start with search_field_catalog to learn the fields, count_persons to size an ' +
  'audience (read-only, privacy-floored), then create_segment / create_audience (creator scope). Tools that spend money answer their cost ' +
  'unless called with confirm: true. Errors carry code, message and next_step.';

/** A JSON Schema object as the SDK's Standard Schema; arguments are validated by the adapter (REST's Ajv settings, section 7 issues). */
function schemaOf(tool: AgentTool): StandardSchemaWithJSON {
  return {
    '~standard': {
      version: 1,
      vendor: 'audience-data-service',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => tool.inputSchema, output: () => tool.inputSchema },
    },
  } as StandardSchemaWithJSON;
}

function resultOf(outcome: Awaited<ReturnType<typeof callTool>>, requestId: string): CallToolResult {
  if (!outcome.ok) {
    const body = envelope(outcome.error, requestId);
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
  }
  const body = outcome.estimate ?? outcome.body;
  const structured =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { result: body ?? null };
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(outcome.replayed !== undefined ? { _meta: { idempotent_replayed: outcome.replayed } } : {}),
  };
}

interface Served {
  caller: Caller;
  request: FastifyRequest;
  idempotency: ToolCall['idempotency'];
}

function serverFor(tools: readonly AgentTool[], { caller, request, idempotency }: Served, version: string): McpServer {
  const server = new McpServer({ name: 'audience-data-service', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  for (const tool of tools) {
    if (!toolAllowed(tool, caller.scopes)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.op.summary,
        description: tool.description,
        inputSchema: schemaOf(tool),
        annotations: tool.annotations,
        _meta: { operation_id: tool.op.id, scope: tool.scope ?? 'any', effect: tool.op.effect },
      },
      async (args: unknown) =>
        resultOf(await callTool(tool, args, { caller, requestId: request.id, log: request.log, idempotency }), request.id),
    );
  }
  return server;
}

/** The tools/call requests of a body (a single message or a 2025 batch). */
function toolCalls(body: unknown): { id: unknown; name: unknown }[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages
    .filter(
      (m): m is { method: string; id?: unknown; params?: { name?: unknown } } =>
        !!m && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call',
    )
    .map((m) => ({ id: m.id ?? null, name: m.params?.name }));
}

/** The `Idempotency-Key` header, for a request carrying a single tools/call (a batch's calls need one key each: the argument). */
function headerKey(request: FastifyRequest, calls: number): string | undefined {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && calls === 1 ? key : undefined;
}

export function registerMcp(app: FastifyInstance, deps: McpDeps): void {
  const tools = agentTools(deps.operations);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const origins = allowedOrigins([deps.resource, ...deps.origins]);
  const metadataUrl = resourceMetadataUrl(deps.resource);
  const path = new URL(deps.resource).pathname.replace(/\/+$/, '') || '/';

  const handler = createMcpHandler(
    (ctx) => {
      const extra = ctx.authInfo?.extra as Served | undefined;
      if (!extra) throw new Error('MCP request without an authenticated caller');
      return serverFor(tools, extra, deps.version);
    },
    { legacy: 'stateless', onerror: (error) => app.log.warn({ err: error }, 'MCP request refused') },
  );
  const node = toNodeHandler(handler, { onerror: (error) => app.log.error({ err: error }, 'MCP request failed') });
  app.addHook('onClose', async () => handler.close());

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: path,
    // A body that cannot be read (not JSON, a broken Content-Encoding) is a JSON-RPC Parse error (error-handler.ts).
    config: { protocol: 'jsonrpc' },
    schema: { hide: true },
    handler: async (request, reply) => {
      if (refuseBadOrigin(request, reply, origins)) return reply;
      const caller = await authenticateOrRefuse(request, reply, deps.authenticate, deps.resource);
      if (!caller) return reply;
      const calls = toolCalls(request.body);
      for (const call of calls) {
        const tool = typeof call.name === 'string' ? byName.get(call.name) : undefined;
        if (!tool || toolAllowed(tool, caller.scopes)) continue;
        const error = CommonErrors.scopeRequired(tool.scope!);
        reply.header(
          'www-authenticate',
          bearerChallenge(deps.resource, { error: 'insufficient_scope', scope: tool.scope!, description: error.message }),
        );
        return reply
          .status(403)
          .type('application/json')
          .send({
            jsonrpc: '2.0',
            id: call.id,
            error: { code: jsonRpcCodeOf(error.code), message: error.message, data: envelope(error, request.id) },
          });
      }
      const authInfo: AuthInfo = {
        token: request.headers.authorization!.replace(/^Bearer\s+/i, '').trim(),
        clientId: caller.clientId ?? caller.keyId ?? caller.userId,
        scopes: caller.scopes,
        expiresAt: Math.floor(caller.expiresAt.getTime() / 1000),
        resource: new URL(deps.resource),
        resourceMetadataUrl: metadataUrl,
        extra: { caller, request, idempotency: { service: deps.idempotency, key: headerKey(request, calls.length) } } satisfies Served,
      };
      reply.hijack();
      await node(Object.assign(request.raw, { auth: authInfo }), reply.raw, request.body);
    },
  });
}
