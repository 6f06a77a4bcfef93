/**
 * A2A tasks belong to the user who started them (issue #31): another user of the same organization gets,
 * on every task method of both protocol versions, the answer a task that does not exist gets. Driven by
 * the official A2A JavaScript SDK clients against the service on a real port.
 */
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg, type TestOrg } from '../helpers/app.ts';
import type { OAuthServer } from '../oauth/setup.ts';
import { agentServer } from './setup.ts';

let server: OAuthServer;
let org: TestOrg;
let member: string;
let ownerToken: string;
let memberToken: string;
const CA = [{ field: 'state', op: '=', value: 'CA' }];
const MISSING = 'task_00000000000000000000000000';

beforeAll(async () => {
  server = await agentServer();
  org = await createTestOrg(server);
  member = await org.addUser('member');
  ownerToken = await org.token(['discovery', 'creator']);
  memberToken = await org.token(['discovery', 'creator'], member);
}, 120_000);

const withBearer =
  (token: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
const client = (token: string) =>
  new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: withBearer(token) })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: withBearer(token) }),
    }),
  ).createFromUrl(server.resources.a2a);
const legacy = (token: string) => new LegacyJsonRpcTransport({ endpoint: `${server.resources.a2a}/a2a`, fetchImpl: withBearer(token) });

const dataPart = (value: object) => ({ content: { $case: 'data', value } });
const message = (value: object) => ({ message: { messageId: `m-${Math.random()}`, role: Role.ROLE_USER, parts: [dataPart(value)] } });
const collect = async <T>(gen: AsyncGenerator<T>) => {
  const out: T[] = [];
  for await (const e of gen) out.push(e);
  return out;
};
type SdkTask = { id: string; contextId: string; status: { state: number }; artifacts: unknown[] };

/** The message an SDK call was refused with, the task id written as <id> (so a real and a made-up id compare). */
async function refusal(call: () => Promise<unknown>, id: string): Promise<string> {
  try {
    await call();
  } catch (error) {
    return String((error as Error).message).replaceAll(id, '<id>');
  }
  throw new Error('the call was not refused');
}

/** The raw JSON-RPC error (code and section 7 code) of a method, as another user and for a missing task. */
async function rawError(token: string, version: '1.0' | '0.3', method: string, id: string) {
  const res = await fetch(`${server.resources.a2a}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'a2a-version': version },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { id, taskId: id } }),
  });
  const text = await res.text();
  // Streaming methods answer an error as JSON or as one SSE event.
  const body = JSON.parse(text.startsWith('data: ') ? text.slice(6) : text) as {
    result?: unknown;
    error?: { code: number; message: string; data?: { code?: string } };
  };
  return {
    status: res.status,
    result: body.result,
    code: body.error?.code,
    data_code: body.error?.data?.code,
    message: body.error?.message.replaceAll(id, '<id>'),
  };
}

/**
 * Each method, through the SDK client (keyed by its JSON-RPC name) and raw, answers the member for the
 * owner's task `id` exactly as for a task that does not exist: TASK_NOT_FOUND (-32001) with NOT_FOUND.
 */
async function expectAnsweredAsMissing(id: string, version: '1.0' | '0.3', calls: Record<string, (id: string) => Promise<unknown>>) {
  for (const [method, call] of Object.entries(calls)) {
    const theirs = await refusal(() => call(id), id);
    expect(theirs, method).toMatch(/No task/);
    expect(theirs, method).toBe(await refusal(() => call(MISSING), MISSING));
    const raw = await rawError(memberToken, version, method, id);
    expect(raw, method).toEqual(await rawError(memberToken, version, method, MISSING));
    expect(raw, method).toMatchObject({ status: 200, code: -32001, data_code: 'NOT_FOUND' });
  }
}

describe("A2A tasks are the user's who started them, not the organization's", () => {
  it("A2A 1.0: another member cannot get, list, cancel or subscribe to the owner's tasks; each answer is the one for a missing task", async () => {
    const owner = await client(ownerToken);
    // A private segment (its name and filters in the artifact) and a file match (its live upload_url in the artifact).
    const secret = (await owner.sendMessage({
      ...message({ tool: 'create_segment', arguments: { name: 'owner private segment', filters: CA, visibility: 'private' } }),
      metadata: { skill: 'segments' },
    } as never)) as SdkTask;
    expect(secret.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const upload = (await owner.sendMessage({
      ...message({ tool: 'start_file_match', arguments: { name: 'owner upload' } }),
      metadata: { skill: 'matching' },
    } as never)) as SdkTask;
    expect(upload.status.state).toBe(TaskState.TASK_STATE_WORKING);

    const other = await client(memberToken);
    for (const task of [secret, upload]) {
      await expectAnsweredAsMissing(task.id, '1.0', {
        GetTask: (id) => other.getTask({ id } as never),
        CancelTask: (id) => other.cancelTask({ id } as never),
        SubscribeToTask: (id) => collect(other.resubscribeTask({ id } as never)),
      });
    }
    const listed = await other.listTasks({ pageSize: 100, includeArtifacts: true } as never);
    expect(listed.tasks).toEqual([]);
    expect(listed.totalSize).toBe(0);
    expect(JSON.stringify(listed)).not.toContain('owner private segment');
    // The owner's page token lists nothing of the owner for the member.
    const ownerPage = await owner.listTasks({ pageSize: 1 } as never);
    expect(ownerPage.nextPageToken).not.toBe('');
    expect((await other.listTasks({ pageSize: 100, pageToken: ownerPage.nextPageToken } as never)).tasks).toEqual([]);

    // Nothing changed: the owner still reads both, the file match still working; the member's own task is the member's.
    expect(((await owner.getTask({ id: upload.id } as never)) as SdkTask).status.state).toBe(TaskState.TASK_STATE_WORKING);
    expect((await owner.listTasks({ pageSize: 100 } as never)).tasks.map((t) => t.id).sort()).toEqual([secret.id, upload.id].sort());
    const own = (await other.sendMessage(message({ tool: 'count_persons', arguments: { filters: CA } }) as never)) as SdkTask;
    expect((await other.listTasks({ pageSize: 100 } as never)).tasks.map((t) => t.id)).toEqual([own.id]);
    expect(await refusal(() => owner.getTask({ id: own.id } as never), own.id)).toBe(
      await refusal(() => owner.getTask({ id: MISSING } as never), MISSING),
    );
  });

  it('A2A 0.3: tasks/get, tasks/cancel and tasks/resubscribe answer another member as for a missing task; push configuration is refused alike', async () => {
    const owner = legacy(ownerToken);
    const upload = (await owner.sendMessage({
      ...message({ tool: 'start_file_match', arguments: { name: 'owner upload 0.3' } }),
      metadata: { skill: 'matching' },
    } as never)) as SdkTask;
    expect(upload.status.state).toBe(TaskState.TASK_STATE_WORKING);
    const other = legacy(memberToken);
    await expectAnsweredAsMissing(upload.id, '0.3', {
      'tasks/get': (id) => other.getTask({ id } as never),
      'tasks/cancel': (id) => other.cancelTask({ id } as never),
      'tasks/resubscribe': (id) => collect(other.resubscribeTask({ id } as never)),
    });
    for (const method of [
      'tasks/pushNotificationConfig/set',
      'tasks/pushNotificationConfig/get',
      'tasks/pushNotificationConfig/list',
      'tasks/pushNotificationConfig/delete',
    ]) {
      expect(await rawError(memberToken, '0.3', method, upload.id), method).toEqual(await rawError(memberToken, '0.3', method, MISSING));
    }
    for (const method of [
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
    ]) {
      expect(await rawError(memberToken, '1.0', method, upload.id), method).toEqual(await rawError(memberToken, '1.0', method, MISSING));
    }
    // The member's cancel did not touch it.
    expect(((await owner.getTask({ id: upload.id } as never)) as SdkTask).status.state).toBe(TaskState.TASK_STATE_WORKING);
  });
});
