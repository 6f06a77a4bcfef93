/**
 * The agent endpoint driven by the official A2A JavaScript SDK clients (1.0 JSON-RPC and the 0.3
 * compatibility transport), against the service on a real port.
 */
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';
import { LegacyJsonRpcTransport, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg, type TestOrg } from '../helpers/app.ts';
import type { OAuthServer } from '../oauth/setup.ts';
import { agentServer } from './setup.ts';

let server: OAuthServer;
let org: TestOrg;
let other: TestOrg;
const CA = [{ field: 'state', op: '=', value: 'CA' }];

beforeAll(async () => {
  server = await agentServer();
  org = await createTestOrg(server);
  other = await createTestOrg(server);
}, 120_000);

/** JSON-RPC methods the clients sent, to show which protocol version each spoke. */
const sent: string[] = [];
const withBearer =
  (token: string): typeof fetch =>
  (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"jsonrpc"')) sent.push(String(JSON.parse(init.body).method));
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

async function client(token: string) {
  const fetchImpl = withBearer(token);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(server.resources.a2a);
}

type AnyClient = Awaited<ReturnType<typeof client>>;
const dataPart = (value: object) => ({ content: { $case: 'data', value } });
const send1 = (c: AnyClient, value: object, extra: object = {}) =>
  c.sendMessage({ message: { messageId: `m-${Math.random()}`, role: Role.ROLE_USER, parts: [dataPart(value)] }, ...extra } as never);
const collect = async <T>(gen: AsyncGenerator<T>) => {
  const out: T[] = [];
  for await (const e of gen) out.push(e);
  return out;
};

describe('@a2a-js/sdk client, A2A 1.0', () => {
  it('sends a discovery message, reads the task back, lists it; a completed task cannot be canceled', async () => {
    const c = await client(await org.token(['discovery']));
    const task = (await send1(c, { tool: 'count_persons', arguments: { filters: CA } })) as {
      id: string;
      status: { state: number };
      artifacts: { parts: { content: { value: { count: number } } }[] }[];
    };
    expect(task.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]!.parts[0]!.content.value.count).toBeGreaterThan(0);
    expect(sent.at(-1)).toBe('SendMessage');
    const got = await c.getTask({ id: task.id } as never);
    expect(got.id).toBe(task.id);
    const listed = await c.listTasks({} as never);
    expect(listed.tasks.map((t) => t.id)).toContain(task.id);
    await expect(c.cancelTask({ id: task.id } as never)).rejects.toThrow(/cannot be canceled/);
  });

  it('streams a message and resubscribes to the ended task', async () => {
    const c = await client(await org.token(['discovery']));
    const events = await collect(
      c.sendMessageStream({
        message: { messageId: 's1', role: Role.ROLE_USER, parts: [dataPart({ tool: 'count_persons', arguments: { filters: CA } })] },
      } as never),
    );
    expect(events.length).toBeGreaterThanOrEqual(2);
    const first = events[0] as { payload?: { $case: string; value: { id: string } } };
    const last = JSON.stringify(events.at(-1));
    expect(last).toContain('statusUpdate');
    const id = first.payload?.$case === 'task' ? first.payload.value.id : (events[0] as { id: string }).id;
    const again = await collect(c.resubscribeTask({ id } as never));
    expect(JSON.stringify(again)).toContain(id);
  });

  it("another organization's task is not found; a creator skill refuses a discovery token", async () => {
    const mine = (await send1(await client(await org.token(['discovery'])), { tool: 'count_persons', arguments: { filters: CA } })) as {
      id: string;
    };
    const outsider = await client(await other.token(['discovery', 'creator']));
    await expect(outsider.getTask({ id: mine.id } as never)).rejects.toThrow(/No task/);
    const reader = await client(await org.token(['discovery']));
    await expect(
      send1(reader, { tool: 'create_segment', arguments: { name: 'sdk', filters: CA } }, { metadata: { skill: 'segments' } }),
    ).rejects.toThrow(/creator/);
  });
});

const MATCHING = { metadata: { skill: 'matching' } };
type SdkTask = {
  id: string;
  contextId: string;
  status: { state: number };
  artifacts: { artifactId: string; parts: { content: { value: Record<string, unknown> } }[] }[];
};

describe('@a2a-js/sdk client, A2A 1.0: long work, paging, refusals', () => {
  it('a task following a file match stays working; a subscriber sees it canceled; a canceled task cannot be canceled again', async () => {
    const c = await client(await org.token(['discovery', 'creator']));
    const task = (await send1(
      c,
      { tool: 'start_file_match', arguments: { name: 'sdk upload' } },
      { ...MATCHING, configuration: { returnImmediately: false } },
    )) as SdkTask;
    expect(task.status.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(task.artifacts[0]!.parts[0]!.content.value).toMatchObject({ status: 'pending', upload_url: expect.any(String) });
    const read = (await c.getTask({ id: task.id } as never)) as SdkTask;
    expect(read.status.state).toBe(TaskState.TASK_STATE_WORKING);
    // The match is read afresh on every read: its progress is the second artifact.
    expect(read.artifacts.map((a) => a.artifactId)).toEqual([`${task.id}-result`, `${task.id}-progress`]);
    expect(read.artifacts[1]!.parts[0]!.content.value).toMatchObject({ matching_status: 'awaiting_upload' });

    const watcher = collect(c.resubscribeTask({ id: task.id } as never));
    const canceled = (await c.cancelTask({ id: task.id } as never)) as SdkTask;
    expect(canceled.status.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(sent.at(-1)).toBe('CancelTask');
    const events = await watcher;
    expect(JSON.stringify(events.at(-1))).toContain('statusUpdate');
    expect((events.at(-1) as { payload: { value: { status: { state: number } } } }).payload.value.status.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    await expect(c.cancelTask({ id: task.id } as never)).rejects.toThrow(/cannot be canceled/);
  });

  it("ListTasks pages with pageSize, pageToken and nextPageToken, newest first, filtered by context; only the organization's tasks", async () => {
    const mineOrg = await createTestOrg(server);
    const c = await client(await mineOrg.token(['discovery']));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const t = (await send1(c, { tool: 'count_persons', arguments: { filters: CA } })) as SdkTask;
      ids.push(t.id);
      server.clock.advance(1000);
    }
    const first = await c.listTasks({ pageSize: 2 } as never);
    expect(sent.at(-1)).toBe('ListTasks');
    expect(first.tasks.map((t) => t.id)).toEqual([ids[4], ids[3]]);
    expect(first.totalSize).toBe(5);
    expect(first.pageSize).toBe(2);
    expect(first.nextPageToken).not.toBe('');
    // Artifacts only when asked for.
    expect(first.tasks[0]!.artifacts).toEqual([]);
    const second = await c.listTasks({ pageSize: 2, pageToken: first.nextPageToken } as never);
    expect(second.tasks.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    const last = await c.listTasks({ pageSize: 2, pageToken: second.nextPageToken, includeArtifacts: true } as never);
    expect(last.tasks.map((t) => t.id)).toEqual([ids[0]]);
    expect(last.nextPageToken).toBe('');
    expect(last.tasks[0]!.artifacts).toHaveLength(1);

    const one = (await c.getTask({ id: ids[2]! } as never)) as SdkTask;
    const byContext = await c.listTasks({ contextId: one.contextId } as never);
    expect(byContext.tasks.map((t) => t.id)).toEqual([ids[2]]);
    expect(byContext.totalSize).toBe(1);
    const completed = await c.listTasks({ status: TaskState.TASK_STATE_COMPLETED, pageSize: 100 } as never);
    expect(completed.totalSize).toBe(5);
    expect((await c.listTasks({ status: TaskState.TASK_STATE_WORKING } as never)).tasks).toEqual([]);

    await expect(c.listTasks({ pageSize: 101 } as never)).rejects.toThrow(/pageSize/);
    await expect(c.listTasks({ pageToken: 'not-a-token' } as never)).rejects.toThrow(/cursor/);
    const outsider = await client(await other.token(['discovery']));
    const theirs = await outsider.listTasks({ pageSize: 100 } as never);
    expect(theirs.tasks.map((t) => t.id)).not.toContain(ids[0]);
    // A page token of one organization lists nothing of it for another.
    const leaked = await outsider.listTasks({ pageSize: 2, pageToken: first.nextPageToken } as never);
    for (const t of leaked.tasks) expect(ids).not.toContain(t.id);
  });

  it('another organization can neither read, cancel nor subscribe to a task; skills refuse tokens without their scope', async () => {
    const mine = (await send1(
      await client(await org.token(['discovery', 'creator'])),
      { tool: 'start_file_match', arguments: { name: 'owner only' } },
      MATCHING,
    )) as SdkTask;
    const outsider = await client(await other.token(['discovery', 'creator']));
    await expect(outsider.getTask({ id: mine.id } as never)).rejects.toThrow(/No task/);
    await expect(outsider.cancelTask({ id: mine.id } as never)).rejects.toThrow(/No task/);
    await expect(collect(outsider.resubscribeTask({ id: mine.id } as never))).rejects.toThrow(/No task/);
    const reader = await client(await org.token(['discovery']));
    await expect(send1(reader, { tool: 'start_file_match', arguments: {} }, MATCHING)).rejects.toThrow(/creator/);
    await expect(
      collect(
        reader.sendMessageStream({
          message: { messageId: 'ss', role: Role.ROLE_USER, parts: [dataPart({ tool: 'start_file_match', arguments: {} })] },
          ...MATCHING,
        } as never),
      ),
    ).rejects.toThrow(/creator/);
    // Still working: the owner's task was not touched by the refused calls.
    expect(((await (await client(await org.token(['discovery']))).getTask({ id: mine.id } as never)) as SdkTask).status.state).toBe(
      TaskState.TASK_STATE_WORKING,
    );
  });

  it('push notification configuration is not supported (-32003), as the agent card says', async () => {
    const c = await client(await org.token(['discovery']));
    expect((await c.getAgentCard()).capabilities?.pushNotifications).toBe(false);
    // The 1.0 client reads the card and refuses before sending; the endpoint answers the methods with -32003 as well.
    await expect(
      (async () => c.createTaskPushNotificationConfig({ taskId: 'task_x', config: { url: 'https://example.com/hook' } } as never))(),
    ).rejects.toThrow(/Push Notification is not supported/i);
    for (const method of [
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
    ]) {
      const res = await withBearer(await org.token(['discovery']))(`${server.resources.a2a}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { taskId: 'task_x' } }),
      });
      expect(((await res.json()) as { error: { code: number } }).error.code, method).toBe(-32003);
    }
  });
});

describe('@a2a-js/sdk client, A2A 0.3 compatibility', () => {
  it('the 0.3 card parses; the legacy JSON-RPC transport sends, gets, streams and is refused across organizations', async () => {
    const raw = await (await fetch(`${server.resources.a2a}/.well-known/agent-card.json`)).json();
    const card = parseLegacyAgentCard(raw);
    expect(card.skills.map((sk) => sk.id)).toContain('discovery');
    const endpoint = `${server.resources.a2a}/a2a`;
    const c = new LegacyJsonRpcTransport({ endpoint, fetchImpl: withBearer(await org.token(['discovery'])) });
    const task = (await c.sendMessage({
      message: { messageId: 'l1', role: Role.ROLE_USER, parts: [dataPart({ tool: 'count_persons', arguments: { filters: CA } })] },
    } as never)) as { id: string; status: { state: number } };
    expect(sent.at(-1)).toBe('message/send');
    expect(task.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await c.getTask({ id: task.id } as never)).id).toBe(task.id);
    expect(sent.at(-1)).toBe('tasks/get');
    const events = await collect(
      c.sendMessageStream({
        message: { messageId: 'l2', role: Role.ROLE_USER, parts: [dataPart({ tool: 'count_persons', arguments: { filters: CA } })] },
      } as never),
    );
    expect(sent.at(-1)).toBe('message/stream');
    expect(JSON.stringify(events.at(-1))).toContain('"state":3');
    const outsider = new LegacyJsonRpcTransport({ endpoint, fetchImpl: withBearer(await other.token(['discovery'])) });
    await expect(outsider.getTask({ id: task.id } as never)).rejects.toThrow(/No task/);
    await expect(outsider.cancelTask({ id: task.id } as never)).rejects.toThrow(/No task/);
  });
});

describe('@a2a-js/sdk client, A2A 0.3: long work, cancel, resubscribe, refusals', () => {
  const legacy = async (token: string) =>
    new LegacyJsonRpcTransport({ endpoint: `${server.resources.a2a}/a2a`, fetchImpl: withBearer(token) });
  const message03 = (id: string, value: object) => ({ message: { messageId: id, role: Role.ROLE_USER, parts: [dataPart(value)] } });

  it('message/send of a file match answers a working task; tasks/resubscribe sees it canceled by tasks/cancel', async () => {
    const c = await legacy(await org.token(['discovery', 'creator']));
    const task = (await c.sendMessage({
      ...message03('l-fm', { tool: 'start_file_match', arguments: { name: 'legacy upload' } }),
      ...MATCHING,
    } as never)) as SdkTask;
    expect(sent.at(-1)).toBe('message/send');
    expect(task.status.state).toBe(TaskState.TASK_STATE_WORKING);
    const watcher = collect(c.resubscribeTask({ id: task.id } as never));
    const canceled = (await c.cancelTask({ id: task.id } as never)) as SdkTask;
    expect(sent).toContain('tasks/resubscribe');
    expect(sent.at(-1)).toBe('tasks/cancel');
    expect(canceled.status.state).toBe(TaskState.TASK_STATE_CANCELED);
    const events = await watcher;
    expect(JSON.stringify(events.at(-1))).toContain(`"state":${TaskState.TASK_STATE_CANCELED}`);
    expect(((await c.getTask({ id: task.id } as never)) as SdkTask).status.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(c.cancelTask({ id: task.id } as never)).rejects.toThrow(/cannot be canceled/);
  });

  it('a creator skill refuses a discovery token; another organization cannot resubscribe; push configuration is -32003', async () => {
    const reader = await legacy(await org.token(['discovery']));
    await expect(
      reader.sendMessage({
        ...message03('l-ref', { tool: 'create_segment', arguments: { name: 'x', filters: CA } }),
        metadata: { skill: 'segments' },
      } as never),
    ).rejects.toThrow(/creator/);
    const mine = (await reader.sendMessage(message03('l-own', { tool: 'count_persons', arguments: { filters: CA } }) as never)) as SdkTask;
    const outsider = await legacy(await other.token(['discovery']));
    await expect(collect(outsider.resubscribeTask({ id: mine.id } as never))).rejects.toThrow(/No task/);
    await expect(
      reader.createTaskPushNotificationConfig({ taskId: mine.id, id: 'c1', url: 'https://example.com/hook' } as never),
    ).rejects.toThrow(/Push notifications are not supported/);
    expect(sent.at(-1)).toBe('tasks/pushNotificationConfig/set');
  });
});
