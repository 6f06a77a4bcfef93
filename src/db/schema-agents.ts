/** Tables of model workflows (src/modules/model-segments; migration 050) and A2A agent tasks (src/modules/agent-tasks; migration 080). */
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Workflow runs of similarity and propensity segments (migration 050). */
export interface WorkflowRunsTable {
  id: string;
  org_id: string;
  segment_id: string;
  kind: string;
  status: string;
  hitl: boolean;
  segment_version: number;
  input: ColumnType<unknown, string, string>;
  steps: ColumnType<unknown, string, string>;
  gates: ColumnType<unknown, string, string>;
  metrics: ColumnType<unknown, string | null | undefined, string | null>;
  model: ColumnType<unknown, string | null | undefined, string | null>;
  members_path: string | null;
  record_count: number | null;
  attempts: ColumnType<number, number | undefined, number>;
  error_code: string | null;
  error_message: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Timestamp | null;
}

/** Tasks of the A2A endpoint. */
export interface AgentTasksTable {
  id: string;
  org_id: string;
  user_id: string;
  context_id: string;
  skill: string;
  tool: string;
  /** submitted | working | completed | failed | canceled */
  state: string;
  /** The agent's message as sent (JSON). */
  message: unknown;
  /** The operation's answer (JSON), once completed. */
  result: unknown | null;
  /** The section 7 envelope (JSON), once failed. */
  error: unknown | null;
  /** The operation answered and its work goes on elsewhere (migration 140): reads follow the resource. */
  following: ColumnType<boolean, boolean | undefined, boolean>;
  /** The followed resource as last read (JSON). */
  progress: unknown | null;
  /** Until when the process running the operation vouches for it; null once it answered. */
  lease_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
