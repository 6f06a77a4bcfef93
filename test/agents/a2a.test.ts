/**
 * The agent endpoint (spec 4.10; ADR 035) over real HTTP: the agent card and its skills derived from
 * the declarations, JSON-RPC in both protocol versions (send, get, cancel, list, streams), JSON-RPC
 * errors mapped from domain codes with the section 7 envelope, scope refusals, owner-only task reads,
 * and the bearer checks of the resource.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTools } from '../../src/http/agent-tools.ts';
import { agentSkills } from '../../src/http/a2a/card.ts';
import { createTestOrg, type TestOrg } from '../helpers/app.ts';
import { json } from '../oauth/flows.ts';
import type { OAuthServer } from '../oauth/setup.ts';
import { agentServer } from './setup.ts';

let server: OAuthServer;
let org: TestOrg;
let other: TestOrg;
let endpoint: string;
const CA = [{ field: 'state', op: '=', value: 'CA' }];

beforeAll(async () => {
  server = await agentServer();
  org = await createTestOrg(server);
  other = await createTestOrg(server);
  endpoint = `${server.resources.a2a}/a2a`;
}, 120_000);
afterAll(() => undefined);

let seq = 0;
async function rpc(
  token: string | null,
  method: string,
  params: object,
  version: '1.0' | '0.3' | null = '1.0',
  headers: Record<string, string> = {},
) {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(version ? { 'a2a-version': version } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++seq, method, params }),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: res.headers.get('content-type')?.startsWith('application/json') ? await json(res) : await res.text(),
  };
}

const message = (data: object, extra: object = {}) => ({
  message: { messageId: `m-${++seq}`, role: 'ROLE_USER', parts: [{ data }] },
  ...extra,
});
const message03 = (data: object, extra: object = {}) => ({
  message: { kind: 'message', messageId: `m-${++seq}`, role: 'user', parts: [{ kind: 'data', data }] },
  ...extra,
});

/** SSE events of a streaming answer, each a JSON-RPC response. */
const events = (text: string) =>
  text
    .split('\n\n')
    .filter((b) => b.startsWith('data: '))
    .map((b) => JSON.parse(b.slice(6)));

describe('agent card', () => {
  it('lists skills derived from the declarations, with their scopes and the security schemes (1.0 and 0.3)', async () => {
    const skills = agentSkills(agentTools(server.services.operations));
    const v1 = await json(await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } }));
    expect(v1.supportedInterfaces).toEqual([
      { url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(v1.skills.map((s: { id: string }) => s.id)).toEqual(skills.map((s) => s.id));
    expect(v1.skills.map((s: { id: string }) => s.id)).toContain('discovery');
    expect(v1.skills.find((s: { id: string }) => s.id === 'discovery').securityRequirements).toEqual([
      { schemes: { oauth2: { list: ['discovery'] } } },
    ]);
    expect(v1.securitySchemes.oauth2.oauth2SecurityScheme.flows.deviceCode.deviceAuthorizationUrl).toBe(
      `${server.url}/v1/oauth/device_authorization`,
    );
    // No administration or purchase skill: nothing needing the account scope is offered.
    for (const skill of skills) expect(skill.scope).not.toBe('account');
    const v03 = await json(await fetch(`${server.resources.a2a}/.well-known/agent-card.json`));
    expect(v03).toMatchObject({
      protocolVersion: '0.3.0',
      url: endpoint,
      preferredTransport: 'JSONRPC',
      security: [{ oauth2: ['discovery'] }, { bearer: [] }],
    });
    expect(v03.skills.map((s: { id: string }) => s.id)).toEqual(skills.map((s) => s.id));
  });
});

describe('A2A 1.0 JSON-RPC', () => {
  it('SendMessage with no skill runs a discovery tool; the task is completed, persisted and read back by GetTask', async () => {
    const token = await org.token(['discovery']);
    const res = await rpc(token, 'SendMessage', message({ tool: 'count_persons', arguments: { filters: CA } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('a2a-version')).toBe('1.0');
    const task = res.body.result.task;
    expect(task).toMatchObject({
      id: expect.stringMatching(/^task_/),
      contextId: expect.stringMatching(/^ctx_/),
      status: { state: 'TASK_STATE_COMPLETED' },
      metadata: { skill: 'discovery', tool: 'count_persons' },
    });
    const rest = await json(
      await fetch(`${server.url}/v1/discovery/count`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filters: CA }),
      }),
    );
    expect(task.artifacts[0].parts[0]).toMatchObject({ mediaType: 'application/json', data: { count: rest.count } });
    const got = await rpc(token, 'GetTask', { id: task.id });
    expect(got.body.result).toEqual(task);
    const listed = await rpc(token, 'ListTasks', {});
    expect(listed.body.result.tasks.map((t: { id: string }) => t.id)).toContain(task.id);
  });

  it("another organization's task is not found (GetTask, CancelTask, SubscribeToTask), and not listed", async () => {
    const res = await rpc(await org.token(['discovery']), 'SendMessage', message({ tool: 'count_persons', arguments: { filters: CA } }));
    const id = res.body.result.task.id;
    const outsider = await other.token(['discovery', 'creator']);
    for (const method of ['GetTask', 'CancelTask']) {
      const miss = await rpc(outsider, method, { id });
      expect(miss.body.error, method).toMatchObject({ code: -32001, data: { code: 'NOT_FOUND' } });
    }
    const sub = await rpc(outsider, 'SubscribeToTask', { id });
    expect(sub.body.error).toMatchObject({ code: -32001 });
    expect((await rpc(outsider, 'ListTasks', {})).body.result.tasks.map((t: { id: string }) => t.id)).not.toContain(id);
  });

  it('a creator skill needs creator: a discovery token is refused with SCOPE_REQUIRED and nothing is created', async () => {
    const token = await org.token(['discovery']);
    const res = await rpc(
      token,
      'SendMessage',
      message({ tool: 'create_segment', arguments: { name: 'A2A no', filters: CA } }, { metadata: { skill: 'segments' } }),
    );
    expect(res.body.error).toMatchObject({ code: -32011, data: { code: 'SCOPE_REQUIRED', required_scope: 'creator', skill: 'segments' } });
    const list = await json(await fetch(`${server.url}/v1/segments?limit=100`, { headers: { authorization: `Bearer ${token}` } }));
    expect(list.segments.map((s: { name: string }) => s.name)).not.toContain('A2A no');
  });

  it('a creator token creates a segment through the segments skill', async () => {
    const token = await org.token(['discovery', 'creator']);
    const res = await rpc(
      token,
      'SendMessage',
      message({ tool: 'create_segment', arguments: { name: 'A2A CA', filters: CA } }, { metadata: { skill: 'segments' } }),
    );
    const segment = res.body.result.task.artifacts[0].parts[0].data;
    expect(segment).toMatchObject({ segment_id: expect.stringMatching(/^seg_/), name: 'A2A CA' });
    expect((await fetch(`${server.url}/v1/segments/${segment.segment_id}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
  });

  it('domain errors are JSON-RPC errors with the mapped code and the section 7 envelope; the failed task is kept', async () => {
    const token = await org.token(['discovery']);
    const missing = await rpc(token, 'SendMessage', message({ tool: 'get_segment', arguments: { id: 'seg_doesnotexist' } }));
    expect(missing.body.error).toMatchObject({
      code: -32012,
      data: { code: 'SEGMENT_NOT_FOUND', next_step: expect.any(String), task_id: expect.stringMatching(/^task_/) },
    });
    const failed = await rpc(token, 'GetTask', { id: missing.body.error.data.task_id });
    expect(failed.body.result.status).toMatchObject({
      state: 'TASK_STATE_FAILED',
      message: { role: 'ROLE_AGENT', parts: [{ data: { code: 'SEGMENT_NOT_FOUND' } }] },
    });
    const invalid = await rpc(token, 'SendMessage', message({ tool: 'count_persons', arguments: { filters: CA, bogus: 1 } }));
    expect(invalid.body.error).toMatchObject({ code: -32602, data: { code: 'INVALID_REQUEST', issues: [{ path: '$.bogus' }] } });
    const noTool = await rpc(token, 'SendMessage', {
      message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'how many in CA?' }] },
    });
    expect(noTool.body.error.code).toBe(-32602);
    expect(noTool.body.error.message).toContain('count_persons');
    const unknownSkill = await rpc(token, 'SendMessage', message({ tool: 'count_persons' }, { metadata: { skill: 'credit-purchase' } }));
    expect(unknownSkill.body.error.code).toBe(-32602);
  });

  it('returnImmediately answers a working task; GetTask later sees it completed; a completed task cannot be canceled', async () => {
    const token = await org.token(['discovery']);
    const res = await rpc(
      token,
      'SendMessage',
      message({ tool: 'count_persons', arguments: { filters: CA } }, { configuration: { returnImmediately: true } }),
    );
    const task = res.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    let state = task.status.state;
    for (let i = 0; i < 100 && state === 'TASK_STATE_WORKING'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      state = (await rpc(token, 'GetTask', { id: task.id })).body.result.status.state;
    }
    expect(state).toBe('TASK_STATE_COMPLETED');
    const cancel = await rpc(token, 'CancelTask', { id: task.id });
    expect(cancel.body.error).toMatchObject({ code: -32002 });
  });

  it('SendStreamingMessage streams the task, its artifact and the final status; SubscribeToTask of an ended task replays it', async () => {
    const token = await org.token(['discovery']);
    const res = await rpc(token, 'SendStreamingMessage', message({ tool: 'count_persons', arguments: { filters: CA } }));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const stream = events(res.body);
    expect(stream.map((e) => Object.keys(e.result)[0])).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
    expect(stream[2].result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const id = stream[0].result.task.id;
    const sub = events((await rpc(token, 'SubscribeToTask', { id })).body);
    expect(sub[0].result.task.id).toBe(id);
    expect(sub.at(-1).result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('A2A tasks following long work', () => {
  it('a task of a file match follows the matched segment: when its upload is reported failed, the task fails with TASK_WORK_FAILED and the reason', async () => {
    const token = await org.token(['discovery', 'creator']);
    const sent = await rpc(
      token,
      'SendMessage',
      message({ tool: 'start_file_match', arguments: { name: 'will fail' } }, { metadata: { skill: 'matching' } }),
    );
    const task = sent.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    const segmentId = task.artifacts[0].parts[0].data.segment_id;
    const working = await rpc(token, 'ListTasks', { status: 'TASK_STATE_WORKING', includeArtifacts: true });
    expect(working.body.result.tasks.map((t: { id: string }) => t.id)).toContain(task.id);
    const failed = await fetch(`${server.url}/v1/segments/${segmentId}/upload-failed`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'source export failed' }),
    });
    expect(failed.status).toBe(200);
    const got = (await rpc(token, 'GetTask', { id: task.id })).body.result;
    expect(got.status.state).toBe('TASK_STATE_FAILED');
    expect(got.status.message.parts[0].data).toMatchObject({
      code: 'TASK_WORK_FAILED',
      message: expect.stringContaining('start_file_match'),
      next_step: expect.any(String),
    });
    expect(got.artifacts[1]).toMatchObject({
      artifactId: `${task.id}-progress`,
      parts: [{ data: { segment_id: segmentId, matching_status: 'failed' } }],
    });
    // Ended: not cancelable, and stays failed on later reads.
    expect((await rpc(token, 'CancelTask', { id: task.id })).body.error).toMatchObject({ code: -32002 });
    expect((await rpc(token, 'GetTask', { id: task.id })).body.result.status.state).toBe('TASK_STATE_FAILED');
  });
});

describe('A2A 0.3 JSON-RPC and versions', () => {
  it('no A2A-Version header means 0.3: message/send, tasks/get, message/stream', async () => {
    const token = await org.token(['discovery']);
    const res = await rpc(token, 'message/send', message03({ tool: 'count_persons', arguments: { filters: CA } }), null);
    expect(res.headers.get('a2a-version')).toBe('0.3');
    expect(res.body.result).toMatchObject({
      kind: 'task',
      status: { state: 'completed' },
      artifacts: [{ parts: [{ kind: 'data', data: { count: expect.any(Number) } }] }],
    });
    const got = await rpc(token, 'tasks/get', { id: res.body.result.id }, '0.3');
    expect(got.body.result).toEqual(res.body.result);
    const stream = events(
      (await rpc(token, 'message/stream', message03({ tool: 'count_persons', arguments: { filters: CA } }), '0.3')).body,
    );
    expect(stream.map((e) => e.result.kind)).toEqual(['task', 'artifact-update', 'status-update']);
    expect(stream[2].result).toMatchObject({ final: true, status: { state: 'completed' } });
  });

  it('methods of the other version, unknown versions and malformed requests are refused with their JSON-RPC codes', async () => {
    const token = await org.token(['discovery']);
    expect(
      (await rpc(token, 'SendMessage', message({ tool: 'count_persons', arguments: { filters: CA } }), null)).body.error,
    ).toMatchObject({ code: -32601 });
    expect((await rpc(token, 'message/send', message03({ tool: 'count_persons' }), '1.0')).body.error).toMatchObject({ code: -32601 });
    expect((await rpc(token, 'ListTasks', {}, '0.3')).body.error).toMatchObject({ code: -32601 });
    expect((await rpc(token, 'SendMessage', {}, '2.0' as never)).body.error).toMatchObject({ code: -32009 });
    const bad = await fetch(endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, method: 3 }),
    });
    expect((await json(bad)).error).toMatchObject({ code: -32600 });
  });

  it('no bearer is 401 with the resource metadata; an Origin of another site is refused', async () => {
    const anon = await rpc(null, 'SendMessage', message({ tool: 'count_persons' }));
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/agent"`,
    );
    const evil = await rpc(
      await org.token(['discovery']),
      'SendMessage',
      message({ tool: 'count_persons', arguments: { filters: CA } }),
      '1.0',
      { origin: 'http://evil.example' },
    );
    expect(evil.status).toBe(403);
  });
});
