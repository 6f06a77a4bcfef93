/**
 * The agent-tasks area: tasks of the A2A endpoint, persisted in the control plane (migrations 080, 140).
 * See service.ts for how a task follows long work across restarts.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { createAgentTaskService } from './service.ts';

export {
  LEASE_MS,
  TERMINAL_STATES,
  type AgentTask,
  type AgentTaskService,
  type AgentTaskState,
  type Follower,
  type TaskFilter,
  type TaskOwner,
} from './service.ts';

export function createAgentTasksModule(deps: { db: Kysely<DB>; clock: Clock }) {
  return { tasks: createAgentTaskService(deps) };
}
