/**
 * Wire shapes of A2A tasks and stream events in the two protocol versions this endpoint speaks: 1.0
 * (ProtoJSON: `TASK_STATE_*`, `ROLE_AGENT`, parts `{data}`) and 0.3 (`kind` discriminators, lower-case
 * states, parts `{kind: 'data', data}`). The task itself is the agent-tasks area's; only its form is here.
 */
import { TERMINAL_STATES, type AgentTask } from '../../modules/agent-tasks/index.ts';

export type A2AVersion = '1.0' | '0.3';

const STATE_1_0: Record<AgentTask['state'], string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELED',
};

const dataPart = (data: unknown, v: A2AVersion) => (v === '1.0' ? { data, mediaType: 'application/json' } : { kind: 'data', data });

function status(task: AgentTask, v: A2AVersion): Record<string, unknown> {
  const message = task.error
    ? v === '1.0'
      ? { messageId: `${task.id}-error`, role: 'ROLE_AGENT', taskId: task.id, contextId: task.contextId, parts: [dataPart(task.error, v)] }
      : {
          kind: 'message',
          messageId: `${task.id}-error`,
          role: 'agent',
          taskId: task.id,
          contextId: task.contextId,
          parts: [dataPart(task.error, v)],
        }
    : undefined;
  return {
    state: v === '1.0' ? STATE_1_0[task.state] : task.state,
    timestamp: task.updatedAt.toISOString(),
    ...(message ? { message } : {}),
  };
}

/** The operation's answer, and (for a task following long work) that resource as last read. */
function artifacts(task: AgentTask, v: A2AVersion): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (task.result !== null && task.result !== undefined)
    out.push({ artifactId: `${task.id}-result`, name: task.tool, parts: [dataPart(task.result, v)] });
  if (task.progress !== null && task.progress !== undefined) {
    out.push({
      artifactId: `${task.id}-progress`,
      name: `${task.tool} progress`,
      description: 'The resource the operation started, as last read',
      parts: [dataPart(task.progress, v)],
    });
  }
  return out;
}

export function taskShape(task: AgentTask, v: A2AVersion): Record<string, unknown> {
  return {
    ...(v === '0.3' ? { kind: 'task' } : {}),
    id: task.id,
    contextId: task.contextId,
    status: status(task, v),
    artifacts: artifacts(task, v),
    metadata: { skill: task.skill, tool: task.tool },
  };
}

/** Events for a task that moved: its artifacts, then its status (`final` once it ended). */
export function updateEvents(task: AgentTask, v: A2AVersion): Record<string, unknown>[] {
  const ids = { taskId: task.id, contextId: task.contextId };
  const final = TERMINAL_STATES.includes(task.state);
  const events: Record<string, unknown>[] = artifacts(task, v).map((artifact) =>
    v === '1.0'
      ? { artifactUpdate: { ...ids, artifact, lastChunk: true } }
      : { kind: 'artifact-update', ...ids, artifact, lastChunk: true },
  );
  events.push(
    v === '1.0' ? { statusUpdate: { ...ids, status: status(task, v) } } : { kind: 'status-update', ...ids, status: status(task, v), final },
  );
  return events;
}

/** The first event of a stream: the task as it stands. */
export const taskEvent = (task: AgentTask, v: A2AVersion) => (v === '1.0' ? { task: taskShape(task, v) } : taskShape(task, v));
