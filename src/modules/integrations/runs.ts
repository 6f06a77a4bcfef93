/**
 * Integration runs (spec 2, 3; docs/decisions/038-integration-runs.md): create, list, get, cancel, and
 * the presentation with exactly the spec's fields. The work of a run is runner.ts (a pg-boss job).
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { DomainError } from '../../core/errors.ts';
import { pageQuery, toPage, type PageRequest } from '../../core/page.ts';
import type { Clock } from '../../lib/clock.ts';
import { randomBase62 } from '../../lib/ids.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { ConnectionService } from './connections.ts';
import type { Static } from 'typebox';
import type { RunSchema } from './schemas.ts';
import fs from 'node:fs';
import { fileBody } from '../../core/operation.ts';
import { runFilePath } from './outputs.ts';
import { integrationStore as store, recordStore, type RunRow } from './store.ts';

type RunView = Static<typeof RunSchema>;

export const INTEGRATION_RUN_JOB = 'integrations.run';
export const RUN_STATUSES = ['created', 'processing', 'awaiting_boundary', 'settling', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** States a cancel is accepted in: nothing has been written to the provider or charged yet. */
export const CANCELLABLE: readonly RunStatus[] = ['created', 'processing'];
export const TERMINAL: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

export interface RunCounts {
  input: number;
  matched: number;
  delivered: number;
  applied: number;
  unchanged: number;
  skipped: number;
  failed: number;
}
export const ZERO_COUNTS: RunCounts = { input: 0, matched: 0, delivered: 0, applied: 0, unchanged: 0, skipped: 0, failed: 0 };

/** What each kind is: its data flow, purpose and customer boundary (decision 038). */
export const KINDS = {
  batch_enrichment: { data_flow: 'round_trip', purpose: 'enrichment', customer_boundary: 'provider_writeback' },
  file_enrichment: { data_flow: 'provider_to_platform', purpose: 'enrichment', customer_boundary: 'file_available' },
  ingest: { data_flow: 'provider_to_platform', purpose: 'ingest', customer_boundary: 'api_response' },
  activation: { data_flow: 'platform_to_provider', purpose: 'activation', customer_boundary: 'destination_handoff' },
  export: { data_flow: 'platform_to_provider', purpose: 'export', customer_boundary: 'provider_writeback' },
} as const;
export type RunKind = keyof typeof KINDS;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
const LIST_SCOPE = 'integration-runs';

export function presentRun(row: RunRow, displayName: string | null): RunView {
  return {
    run_id: row.id,
    provider: row.provider,
    connection_id: row.connection_id,
    connection_display_name: displayName,
    kind: row.kind as RunView['kind'],
    data_flow: row.data_flow as RunView['data_flow'],
    purpose: row.purpose as RunView['purpose'],
    status: row.status as RunView['status'],
    billing_source: row.billing_source,
    customer_boundary: row.customer_boundary as RunView['customer_boundary'],
    counts: JSON.parse(row.counts) as RunCounts,
    selected_fields: JSON.parse(row.selected_fields) as string[],
    boundary_at: iso(row.boundary_at),
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    completed_at: iso(row.completed_at),
  };
}

export function createRunService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  queue: Pick<JobQueue, 'send'>;
  connections: ConnectionService;
  checkFieldList(fields: string[]): string[];
  filesDir: string;
  /** Checks the audience of an activation or export run (AUDIENCE_NOT_FOUND unless visible to the caller). */
  checkAudience(viewer: { orgId: string; userId: string }, audienceId: string): Promise<void>;
}) {
  const { db, clock } = deps;

  async function view(row: RunRow) {
    const conn = await store.connection(db, row.org_id, row.connection_id);
    return presentRun(row, conn?.display_name ?? null);
  }

  async function find(orgId: string, id: string): Promise<RunRow> {
    const row = await store.run(db, orgId, id);
    if (!row) throw new DomainError('INTEGRATION_RUN_NOT_FOUND', `No integration run ${id} in this organization.`);
    return row;
  }

  async function output(orgId: string, id: string, kind: RunKind): Promise<RunRow> {
    const row = await find(orgId, id);
    if (row.kind !== kind || row.status !== 'completed') {
      throw new DomainError(
        'INTEGRATION_RUN_OUTPUT_UNAVAILABLE',
        `This is a ${row.status} ${row.kind} run; only a completed ${kind} run has this output.`,
      );
    }
    return row;
  }

  return {
    async create(
      caller: { orgId: string; userId: string },
      input: { provider: string; kind: RunKind; selected_fields: string[]; billing_source?: string; audience_id?: string },
    ) {
      const pushes = input.kind === 'activation' || input.kind === 'export';
      if (pushes !== (input.audience_id !== undefined)) {
        throw new DomainError(
          'INVALID_REQUEST',
          pushes
            ? `A ${input.kind} run names the audience it pushes in audience_id.`
            : `audience_id belongs to activation and export runs only, not ${input.kind}.`,
        );
      }
      if (input.audience_id !== undefined) await deps.checkAudience(caller, input.audience_id);
      const connection = await deps.connections.live(caller.orgId, input.provider);
      const fields = [...new Set(deps.checkFieldList(input.selected_fields))];
      const id = `ir_${randomBase62(40)}`;
      const now = clock.now();
      await store.insertRun(db, {
        id,
        org_id: caller.orgId,
        connection_id: connection.id,
        provider: input.provider,
        kind: input.kind,
        ...KINDS[input.kind],
        status: 'created',
        billing_source: input.billing_source ?? 'native',
        counts: JSON.stringify(ZERO_COUNTS),
        selected_fields: JSON.stringify(fields),
        boundary_at: null,
        failure_code: null,
        failure_message: null,
        created_by: caller.userId,
        created_at: now,
        updated_at: now,
        completed_at: null,
        audience_id: input.audience_id ?? null,
      });
      try {
        await deps.queue.send(INTEGRATION_RUN_JOB, { run_id: id }, { retryLimit: 2, retryDelay: 30 });
      } catch (error) {
        await store.moveRun(db, id, ['created'], {
          status: 'failed',
          failure_code: 'INTERNAL_ERROR',
          failure_message: 'The run could not be queued.',
          updated_at: clock.now(),
          completed_at: clock.now(),
        });
        throw error;
      }
      return view((await store.run(db, caller.orgId, id))!);
    },

    async get(orgId: string, id: string) {
      return view(await find(orgId, id));
    },

    async list(orgId: string, request: PageRequest) {
      const { after, limit, fetch } = pageQuery(LIST_SCOPE, request);
      const rows = await store.listRuns(db, orgId, after, fetch);
      const page = toPage(
        LIST_SCOPE,
        rows,
        limit,
        (r) => ({ at: new Date(r.created_at), id: r.id }),
        (r) => r,
      );
      const runs = [];
      for (const r of page.items) runs.push(await view(r));
      return { runs, has_more: page.next_cursor !== null, next_cursor: page.next_cursor };
    },

    /** The records of a completed ingest run, in the order the contacts were read. */
    async records(orgId: string, id: string, request: PageRequest) {
      const row = await output(orgId, id, 'ingest');
      const scope = `integration-run-records:${row.id}`;
      const { after, limit, fetch } = pageQuery(scope, request);
      const rows = await recordStore.page(db, orgId, row.id, after ? Number(after.id) : 0, fetch);
      const page = toPage(
        scope,
        rows,
        limit,
        (r) => ({ at: new Date(0), id: String(r.seq) }),
        (r) => ({
          provider_contact_id: r.provider_contact_id,
          iag_person_id: r.iag_person_id,
          match_level: r.match_level,
          fields: JSON.parse(r.field_values) as Record<string, string>,
        }),
      );
      return { records: page.items, has_more: page.next_cursor !== null, next_cursor: page.next_cursor };
    },

    /** The enriched CSV of a completed file_enrichment run. */
    async file(orgId: string, id: string) {
      const row = await output(orgId, id, 'file_enrichment');
      const file = runFilePath(deps.filesDir, orgId, row.id);
      if (!fs.existsSync(file)) throw new DomainError('INTEGRATION_RUN_OUTPUT_UNAVAILABLE', 'The file of this run is no longer available.');
      return fileBody({ path: file, contentType: 'text/csv', fileName: `${row.id}.csv`, bytes: fs.statSync(file).size });
    },

    /**
     * A created run is cancelled at once; a processing one is marked and stops before its next provider
     * page (the runner checks), so it also ends `cancelled` with nothing written and nothing charged.
     */
    async cancel(orgId: string, id: string) {
      const row = await find(orgId, id);
      const now = clock.now();
      if (
        row.status === 'created' &&
        (await store.moveRun(db, id, ['created'], { status: 'cancelled', cancel_requested: true, updated_at: now, completed_at: now }))
      ) {
        return view((await store.run(db, orgId, id))!);
      }
      if (row.status === 'processing' && (await store.moveRun(db, id, ['processing'], { cancel_requested: true, updated_at: now }))) {
        return view((await store.run(db, orgId, id))!);
      }
      const current = await find(orgId, id);
      throw new DomainError(
        'INVALID_STATUS_TRANSITION',
        `A ${current.status} run cannot be cancelled (only created or processing runs can: nothing has been written or charged yet).`,
      );
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
