/**
 * The agent endpoint: `POST {a2a_url}/a2a`, JSON-RPC 2.0 in A2A 1.0 (`A2A-Version: 1.0`: SendMessage,
 * SendStreamingMessage, GetTask, CancelTask, SubscribeToTask, ListTasks) and 0.3 (no header or `0.3`:
 * message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe), and the agent card at the
 * well-known path. A message runs one agent tool (an operation declaration) of a skill; the task is
 * persisted by the agent-tasks area. Domain errors become JSON-RPC errors with the section 7 envelope
 * in `error.data` (src/http/error-jsonrpc.ts). No rule of an operation is written here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../core/caller.ts';
import { CommonErrors, DomainError } from '../../core/errors.ts';
import type { Operation } from '../../core/operation.ts';
import { hasScope } from '../../core/scopes.ts';
import { TERMINAL_STATES, type AgentTask, type AgentTaskService, type Follower } from '../../modules/agent-tasks/index.ts';
import { allowedOrigins, authenticateOrRefuse, refuseBadOrigin, type ResourceAuthenticate } from '../agent-guard.ts';
import { agentTools, callTool, envelope } from '../agent-tools.ts';
import { JSONRPC, jsonRpcCodeOf } from '../error-jsonrpc.ts';
import type { IdempotencyService } from '../idempotency/service.ts';
import { agentCard, agentSkills, DEFAULT_SKILL, type AgentSkill, type CardUrls } from './card.ts';
import { taskEvent, taskShape, updateEvents, type A2AVersion } from './shapes.ts';

export interface A2ADeps {
  operations: readonly Operation[];
  tasks: AgentTaskService;
  authenticate: ResourceAuthenticate;
  urls: CardUrls;
  origins: readonly string[];
  /** REST's Idempotency-Key mechanism, for the `idempotency_key` argument of tools that take one. */
  idempotency: IdempotencyService;
}

type Action = 'send' | 'stream' | 'get' | 'cancel' | 'subscribe' | 'list' | 'push';
const METHODS: Record<A2AVersion, Record<string, Action>> = {
  '1.0': {
    SendMessage: 'send',
    SendStreamingMessage: 'stream',
    GetTask: 'get',
    CancelTask: 'cancel',
    SubscribeToTask: 'subscribe',
    ListTasks: 'list',
    CreateTaskPushNotificationConfig: 'push',
    GetTaskPushNotificationConfig: 'push',
    ListTaskPushNotificationConfigs: 'push',
    DeleteTaskPushNotificationConfig: 'push',
  },
  '0.3': {
    'message/send': 'send',
    'message/stream': 'stream',
    'tasks/get': 'get',
    'tasks/cancel': 'cancel',
    'tasks/resubscribe': 'subscribe',
    'tasks/pushNotificationConfig/set': 'push',
    'tasks/pushNotificationConfig/get': 'push',
    'tasks/pushNotificationConfig/list': 'push',
    'tasks/pushNotificationConfig/delete': 'push',
  },
};
/** How often a stream reads a running task again (the task row, and the resource a following task watches). */
const POLL_MS = 500;
/** ListTasks page sizes (A2A 1.0: default 50, 1 to 100). */
const PAGE = { default: 50, max: 100 };
const STATE_FILTER: Record<string, string> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  1: 'submitted',
  2: 'working',
  3: 'completed',
  4: 'failed',
  5: 'canceled',
};

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const fromDomain = (error: DomainError, requestId: string, extra: Record<string, unknown> = {}) =>
  new RpcError(jsonRpcCodeOf(error.code), error.message, { ...envelope(error, requestId), ...extra });

type Params = Record<string, unknown>;
interface Call {
  caller: Caller;
  request: FastifyRequest;
  version: A2AVersion;
  params: Params;
}

/** `A2A-Version`: none means 0.3; anything but 1.0 or 0.3 is refused. */
function versionOf(request: FastifyRequest): A2AVersion | null {
  const raw = String(request.headers['a2a-version'] ?? '').trim();
  if (raw === '' || raw === '0.3' || raw === '0.3.0') return '0.3';
  if (raw === '1.0' || raw === '1' || raw === '1.0.0') return '1.0';
  return null;
}

export function registerA2A(app: FastifyInstance, deps: A2ADeps): void {
  const tools = agentTools(deps.operations);
  const toolsByName = new Map(tools.map((t) => [t.name, t]));
  const skills = new Map(agentSkills(tools).map((s) => [s.id, s]));
  const origins = allowedOrigins([deps.urls.resource, ...deps.origins]);
  const base = new URL(deps.urls.resource).pathname.replace(/\/+$/, '');

  const card = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('vary', 'A2A-Version').header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=300');
    return agentCard([...skills.values()], deps.urls, versionOf(request) === '1.0' ? '1.0' : '0.3');
  };
  for (const url of new Set(['/.well-known/agent-card.json', `${base}/.well-known/agent-card.json`])) {
    app.get(url, { config: { access: 'public' }, schema: { hide: true } }, card);
  }

  /** Resolves the skill and tool of a message, or refuses (unknown skill or tool, scope). */
  function route(call: Call): { skill: AgentSkill; tool: AgentSkill['tools'][number]; args: unknown; message: Params } {
    const message = call.params.message as Params | undefined;
    const metadata = (call.params.metadata ?? {}) as Params;
    if (!message || !Array.isArray(message.parts)) throw new RpcError(JSONRPC.INVALID_PARAMS, 'params.message with parts is required');
    const skillId = typeof metadata.skill === 'string' ? metadata.skill : DEFAULT_SKILL;
    const skill = skills.get(skillId);
    if (!skill)
      throw new RpcError(
        JSONRPC.INVALID_PARAMS,
        `Unknown skill ${skillId}; the agent card lists the skills: ${[...skills.keys()].join(', ')}`,
      );
    if (!hasScope(call.caller.scopes, skill.scope)) {
      throw fromDomain(CommonErrors.scopeRequired(skill.scope), call.request.id, { skill: skill.id });
    }
    const part = (message.parts as Params[]).find((p) => p && typeof p.data === 'object' && p.data !== null);
    const data = (part?.data ?? {}) as { tool?: unknown; arguments?: unknown };
    const name = typeof data.tool === 'string' ? data.tool : skill.tools.length === 1 ? skill.tools[0]!.name : null;
    const tool = skill.tools.find((t) => t.name === name);
    if (!tool) {
      throw new RpcError(
        JSONRPC.INVALID_PARAMS,
        `Send a data part {"tool": ..., "arguments": {...}} naming one of the ${skill.id} tools: ${skill.tools.map((t) => t.name).join(', ')}`,
      );
    }
    const campaignId = metadata.campaign_id;
    const args = { ...((data.arguments ?? {}) as Params) };
    if (typeof campaignId === 'string' && 'campaign_id' in (tool.inputSchema.properties as Params) && args.campaign_id === undefined)
      args.campaign_id = campaignId;
    return { skill, tool, args, message };
  }

  /**
   * Runs the tool of a task under a lease this process renews (a read after the process stopped fails
   * the task with TASK_INTERRUPTED); an operation that started long work leaves the task following it.
   */
  async function run(call: Call, task: AgentTask, tool: AgentSkill['tools'][number], args: unknown): Promise<AgentTask> {
    const release = deps.tasks.hold(task);
    let outcome: Awaited<ReturnType<typeof callTool>>;
    try {
      outcome = await callTool(tool, args, {
        caller: call.caller,
        requestId: call.request.id,
        log: call.request.log,
        idempotency: { service: deps.idempotency },
      });
    } finally {
      release();
    }
    const requestId = call.request.id;
    if (!outcome.ok) return deps.tasks.finish(call.caller, task.id, { error: envelope(outcome.error, requestId) }, requestId);
    const body = outcome.estimate ?? outcome.body ?? null;
    const follow = outcome.estimate || !tool.op.agent ? undefined : tool.op.agent.follow;
    return deps.tasks.finish(
      call.caller,
      task.id,
      { result: body, ...(follow && body ? { progress: follow.progress(body) } : {}) },
      requestId,
    );
  }

  /** Reads the resource a following task watches, as the reading caller (the task's owner). A resource gone is a failure. */
  const followerOf =
    (call: Call): Follower =>
    async (task) => {
      const agent = toolsByName.get(task.tool)?.op.agent;
      const follow = agent ? agent.follow : undefined;
      if (!follow) return null;
      try {
        const resource = await follow.read({ caller: call.caller, requestId: call.request.id, log: call.request.log }, task.result);
        return { resource, progress: follow.progress(resource) };
      } catch (error) {
        if (error instanceof DomainError && error.code.endsWith('NOT_FOUND'))
          return { resource: null, progress: { state: 'failed', reason: error.message } };
        call.request.log.warn({ err: error, task: task.id }, 'agent task follow-up read failed');
        return null;
      }
    };
  const readOptions = (call: Call) => ({ follow: followerOf(call), requestId: call.request.id });

  async function open(call: Call) {
    const { skill, tool, args, message } = route(call);
    const contextId = typeof message.contextId === 'string' ? message.contextId : undefined;
    const task = await deps.tasks.open({
      orgId: call.caller.orgId,
      userId: call.caller.userId,
      contextId,
      skill: skill.id,
      tool: tool.name,
      message,
    });
    return { task, tool, args };
  }

  async function send(call: Call): Promise<unknown> {
    const configuration = (call.params.configuration ?? {}) as { returnImmediately?: unknown; blocking?: unknown };
    const immediately = call.version === '1.0' ? configuration.returnImmediately === true : configuration.blocking === false;
    const { task, tool, args } = await open(call);
    if (immediately) {
      void run(call, task, tool, args).catch((error) => call.request.log.error({ err: error, task: task.id }, 'agent task failed'));
      return call.version === '1.0' ? { task: taskShape(task, call.version) } : taskShape(task, call.version);
    }
    const done = await run(call, task, tool, args);
    if (done.state === 'failed' && done.error) {
      const error = done.error as { code?: string; message?: string };
      throw new RpcError(jsonRpcCodeOf(error.code as never), String(error.message), { ...done.error, task_id: done.id });
    }
    return call.version === '1.0' ? { task: taskShape(done, call.version) } : taskShape(done, call.version);
  }

  const taskId = (params: Params) => {
    const id = params.id ?? params.taskId ?? (typeof params.name === 'string' ? params.name.replace(/^tasks\//, '') : undefined);
    if (typeof id !== 'string' || !id) throw new RpcError(JSONRPC.INVALID_PARAMS, 'params.id (the task id) is required');
    return id;
  };

  async function find(call: Call): Promise<AgentTask> {
    const id = taskId(call.params);
    try {
      return await deps.tasks.get(call.caller, id, readOptions(call));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'NOT_FOUND')
        throw new RpcError(JSONRPC.TASK_NOT_FOUND, error.message, envelope(error, call.request.id));
      throw error;
    }
  }

  async function cancel(call: Call): Promise<unknown> {
    await find(call);
    const { task, canceled } = await deps.tasks.cancel(call.caller, taskId(call.params), readOptions(call));
    if (!canceled)
      throw new RpcError(JSONRPC.TASK_NOT_CANCELABLE, `Task ${task.id} has already ended (${task.state}) and cannot be canceled.`);
    return taskShape(task, call.version);
  }

  /** ListTasks (A2A 1.0): the caller's own tasks newest first, paged by pageSize/pageToken, filtered by contextId, status and statusTimestampAfter. */
  async function list(call: Call): Promise<unknown> {
    const p = call.params;
    const pageSize = p.pageSize === undefined || p.pageSize === null ? PAGE.default : Number(p.pageSize);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > PAGE.max)
      throw new RpcError(JSONRPC.INVALID_PARAMS, `pageSize must be an integer from 1 to ${PAGE.max}.`);
    // The SDK's client sends UNRECOGNIZED for an unset status.
    const unset =
      p.status === undefined || p.status === null || ['', 0, 'TASK_STATE_UNSPECIFIED', 'UNRECOGNIZED', -1].includes(p.status as never);
    const state = unset ? undefined : STATE_FILTER[String(p.status)];
    if (!unset && !state) {
      throw new RpcError(
        JSONRPC.INVALID_PARAMS,
        `status ${String(p.status)} is not a task state this service uses (${Object.keys(STATE_FILTER)
          .filter((k) => k.startsWith('TASK'))
          .join(', ')}).`,
      );
    }
    const since = typeof p.statusTimestampAfter === 'string' && p.statusTimestampAfter ? new Date(p.statusTimestampAfter) : undefined;
    if (since && Number.isNaN(since.getTime()))
      throw new RpcError(JSONRPC.INVALID_PARAMS, 'statusTimestampAfter must be an ISO 8601 timestamp.');
    const filter = { contextId: typeof p.contextId === 'string' && p.contextId ? p.contextId : undefined, state, updatedSince: since };
    const page = await deps.tasks.list(
      call.caller,
      { pageSize, pageToken: typeof p.pageToken === 'string' ? p.pageToken : undefined, filter },
      readOptions(call),
    );
    const withArtifacts = p.includeArtifacts === true;
    const tasks = page.tasks.map((t) => ({ ...taskShape(t, call.version), ...(withArtifacts ? {} : { artifacts: [] }) }));
    return { tasks, nextPageToken: page.nextPageToken, pageSize, totalSize: page.totalSize };
  }

  /** Streams: the task first, then (once it ends) its artifact and final status, each a JSON-RPC response in an SSE event. */
  async function stream(call: Call, id: unknown, reply: FastifyReply, action: 'stream' | 'subscribe') {
    const start = action === 'stream' ? await open(call) : { task: await find(call), tool: null, args: null };
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const emit = (result: unknown) => reply.raw.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
    emit(taskEvent(start.task, call.version));
    let task = start.task;
    let shown = '';
    if (start.tool) task = await run(call, start.task, start.tool, start.args);
    for (;;) {
      const now = JSON.stringify(taskShape(task, call.version));
      if (now !== shown) for (const event of updateEvents(task, call.version)) emit(event);
      shown = now;
      if (TERMINAL_STATES.includes(task.state) || reply.raw.destroyed) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      task = await deps.tasks.get(call.caller, task.id, readOptions(call));
    }
    reply.raw.end();
  }

  app.post(`${base}/a2a`, { config: { access: 'public', protocol: 'jsonrpc' }, schema: { hide: true } }, async (request, reply) => {
    if (refuseBadOrigin(request, reply, origins)) return reply;
    const caller = await authenticateOrRefuse(request, reply, deps.authenticate, deps.urls.resource);
    if (!caller) return reply;
    const body = request.body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown } | undefined;
    const id = body && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
    const answer = (payload: { result: unknown } | { error: RpcError }) =>
      reply.type('application/json').send({
        jsonrpc: '2.0',
        id,
        ...('result' in payload
          ? { result: payload.result }
          : {
              error: {
                code: payload.error.code,
                message: payload.error.message,
                ...(payload.error.data ? { data: payload.error.data } : {}),
              },
            }),
      });
    try {
      const version = versionOf(request);
      if (!version)
        throw new RpcError(
          JSONRPC.VERSION_NOT_SUPPORTED,
          `A2A-Version ${String(request.headers['a2a-version'])} is not supported; send 1.0 or 0.3 (or no header for 0.3).`,
        );
      reply.header('a2a-version', version);
      if (!body || typeof body !== 'object' || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
        throw new RpcError(JSONRPC.INVALID_REQUEST, 'A JSON-RPC 2.0 request object is required: {jsonrpc: "2.0", id, method, params}.');
      }
      const action = METHODS[version][body.method];
      if (!action) {
        const other = version === '1.0' ? '0.3' : '1.0';
        const hint = METHODS[other][body.method] ? ` (a ${other} method: send A2A-Version: ${other})` : '';
        throw new RpcError(JSONRPC.METHOD_NOT_FOUND, `Method ${body.method} is not an A2A ${version} method${hint}.`);
      }
      const params = (body.params && typeof body.params === 'object' ? body.params : {}) as Params;
      const call: Call = { caller, request, version, params };
      if (action === 'stream' || action === 'subscribe') return await stream(call, id, reply, action);
      if (action === 'push') {
        throw new RpcError(
          JSONRPC.PUSH_NOTIFICATION_NOT_SUPPORTED,
          'Push notifications are not supported (the agent card says capabilities.pushNotifications: false); ' +
            'follow a task with SubscribeToTask (tasks/resubscribe) or GetTask (tasks/get), or subscribe to webhooks over REST.',
        );
      }
      const result =
        action === 'send'
          ? await send(call)
          : action === 'get'
            ? taskShape(await find(call), version)
            : action === 'cancel'
              ? await cancel(call)
              : await list(call);
      return answer({ result });
    } catch (error) {
      if (error instanceof RpcError) return answer({ error });
      if (error instanceof DomainError) return answer({ error: fromDomain(error, request.id) });
      request.log.error({ err: error }, 'agent request failed');
      return answer({ error: new RpcError(JSONRPC.INTERNAL_ERROR, 'Internal error', envelope(CommonErrors.internal(), request.id)) });
    }
  });
}
