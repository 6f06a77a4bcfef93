/**
 * `X-Integration-Execution-Key` on POST /v1/match/file (spec 4.5, 2; decision 050): a pre-registered
 * confidential partner client (OAuth, decisions 028/029) creates or replays a private integration run of
 * the organization. The run id is derived from the organization, the client and the key, so a replay
 * finds the same run and answers the same match (with fresh upload URLs): nothing is created or charged
 * twice. The match itself is billed like every file match (once, at its first delivery).
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Caller } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { integrationStore as store } from './store.ts';

export const EXECUTION_KEY_HEADER = 'x-integration-execution-key';
/** How long a first call may take to create its match before a replay may start the run afresh. */
const STALE_FIRST_CALL_MS = 10 * 60_000;
export const EXECUTION_KEY_PATTERN = /^[A-Za-z0-9._:-]{8,200}$/;
/** The provider and kind of an execution-key run: the partner's file, matched here, made available as a file. */
export const PARTNER_PROVIDER = 'oauth_partner';
export const PARTNER_RUN = {
  kind: 'file_enrichment',
  data_flow: 'round_trip',
  purpose: 'enrichment',
  customer_boundary: 'file_available',
} as const;

/** `ir_` + the first 40 characters of base64url(SHA-256(org, client, key)): A-Z a-z 0-9 _ - (spec 2). */
export function executionRunId(orgId: string, clientId: string, key: string): string {
  const digest = createHash('sha256').update(`integration-execution/v1\n${orgId}\n${clientId}\n${key}`).digest('base64url');
  return `ir_${digest.slice(0, 40)}`;
}

/** JSON with sorted keys: the same body in another key order is the same body. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export interface ClientStandingPort {
  (clientId: string): Promise<{ name: string | null; partner: boolean; confidential: boolean } | null>;
}

const notAllowed = (message: string) =>
  new DomainError('INTEGRATION_EXECUTION_KEY_NOT_ALLOWED', message, {
    nextStep:
      'Send the request without X-Integration-Execution-Key, or call with an access token of your pre-registered confidential partner client.',
  });

export function createExecutionService(deps: { db: Kysely<DB>; clock: Clock; clientStanding: ClientStandingPort }) {
  const { db, clock } = deps;

  /** Refuses every caller but a confidential partner client's OAuth token; returns the client id. */
  async function partnerOf(caller: Caller, key: string): Promise<string> {
    if (!EXECUTION_KEY_PATTERN.test(key)) {
      throw new DomainError(
        'INVALID_INTEGRATION_EXECUTION_KEY',
        'X-Integration-Execution-Key must be 8-200 characters of A-Z a-z 0-9 . _ : -.',
        { nextStep: 'Send a stable key of your workflow execution in that alphabet.' },
      );
    }
    if (caller.via !== 'oauth' || !caller.clientId) {
      throw notAllowed(
        'X-Integration-Execution-Key is for OAuth partnerships: an API key (or a bearer exchanged for one) cannot start a partner run.',
      );
    }
    const standing = await deps.clientStanding(caller.clientId);
    if (!standing || !standing.partner || !standing.confidential) {
      throw notAllowed(
        `The client ${caller.clientId} is not a pre-registered confidential partner client; X-Integration-Execution-Key is refused for public and dynamically registered clients.`,
      );
    }
    return caller.clientId;
  }

  return {
    partnerOf,

    /**
     * Creates (with `create`) or replays (with `replay` over the stored first answer) the run of `key`.
     * A replay with another body is 409 IDEMPOTENCY_KEY_CONFLICT; one while the first is still creating
     * its match is 409 IDEMPOTENT_REQUEST_IN_PROGRESS.
     */
    async start<D extends { segment_id: string }>(
      caller: Caller,
      key: string,
      body: unknown,
      create: () => Promise<D>,
      replay: (stored: D) => Promise<D>,
    ): Promise<D & { integration_run_id: string }> {
      const clientId = await partnerOf(caller, key);
      const id = executionRunId(caller.orgId, clientId, key);
      const bodyHash = createHash('sha256')
        .update(canonical(body ?? {}))
        .digest('hex');
      const replayOf = async () => {
        const row = (await store.run(db, caller.orgId, id))!;
        if (row.execution_body_hash !== bodyHash) {
          throw new DomainError(
            'IDEMPOTENCY_KEY_CONFLICT',
            'This X-Integration-Execution-Key started a run with a different request body.',
            { nextStep: 'Use a new execution key for a different request.' },
          );
        }
        if (!row.execution_response)
          throw new DomainError(
            'IDEMPOTENT_REQUEST_IN_PROGRESS',
            'The first request with this X-Integration-Execution-Key is still creating its match.',
            { nextStep: 'Retry in a moment.' },
          );
        return { ...(await replay(JSON.parse(row.execution_response) as D)), integration_run_id: id };
      };
      const existing = await store.run(db, caller.orgId, id);
      const now = clock.now();
      // A first call that crashed before storing its answer leaves a bare row; after a while the key starts afresh.
      if (existing && !existing.execution_response && now.getTime() - new Date(existing.created_at).getTime() > STALE_FIRST_CALL_MS) {
        await db
          .deleteFrom('integration_runs')
          .where('id', '=', id)
          .where('org_id', '=', caller.orgId)
          .where('execution_response', 'is', null)
          .execute();
      } else if (existing) {
        return replayOf();
      }
      try {
        await store.insertRun(db, {
          id,
          org_id: caller.orgId,
          connection_id: clientId,
          provider: PARTNER_PROVIDER,
          ...PARTNER_RUN,
          status: 'created',
          billing_source: 'native',
          counts: JSON.stringify({ input: 0, matched: 0, delivered: 0, applied: 0, unchanged: 0, skipped: 0, failed: 0 }),
          selected_fields: '[]',
          boundary_at: null,
          failure_code: null,
          failure_message: null,
          created_by: caller.userId,
          created_at: now,
          updated_at: now,
          completed_at: null,
          oauth_client_id: clientId,
          execution_body_hash: bodyHash,
        });
      } catch (error) {
        if ((error as { code?: string }).code !== '23505') throw error;
        return replayOf(); // a concurrent first request won the primary key
      }
      let created: D;
      try {
        created = await create();
      } catch (error) {
        await db.deleteFrom('integration_runs').where('id', '=', id).where('org_id', '=', caller.orgId).execute();
        throw error;
      }
      const { upload_url: _u, upload_urls: _us, ...stored } = created as D & { upload_url?: string; upload_urls?: string[] };
      await store.updateRun(db, id, {
        match_segment_id: created.segment_id,
        execution_response: JSON.stringify(stored),
        updated_at: clock.now(),
      });
      return { ...created, integration_run_id: id };
    },

    /** The execution-key run of a match, if any (deliveries carry it). */
    async runOfMatch(orgId: string, segmentId: string): Promise<string | null> {
      const row = await db
        .selectFrom('integration_runs')
        .select('id')
        .where('org_id', '=', orgId)
        .where('match_segment_id', '=', segmentId)
        .executeTakeFirst();
      return row?.id ?? null;
    },
  };
}

export type ExecutionService = ReturnType<typeof createExecutionService>;
