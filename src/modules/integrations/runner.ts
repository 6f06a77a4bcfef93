/**
 * The work of a run that pulls provider contacts (a pg-boss job; docs/decisions/038-integration-runs.md):
 *
 *   processing         pull contacts page by page, match each page (unbilled), sort each matched contact
 *   awaiting_boundary  reserve the charge ceiling (billing_source native), then by kind: write changes back
 *                      (batch_enrichment), write the enriched file (file_enrichment), store the records (ingest)
 *   settling           the boundary is reached (boundary_at): settle the charge, less the contract discount
 *   completed          settled and moved in one transaction, which also captures the matched persons of a
 *                      batch_enrichment, file_enrichment or ingest run into the match collection (decision 050)
 *
 * Any failure before `completed` releases the reservations and ends `failed` with a failure code; a
 * cancel is honoured before each provider page while `processing`. The ledger rows carry idempotency
 * keys of the run, so a retried job never charges twice.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { DomainError } from '../../core/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { BillingService, ContractTerms, Reservation } from '../billing/index.ts';
import { enrichmentKey, type MatchingService } from '../matching/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { completeCapturing } from './collections-capture.ts';
import type { CollectionService } from './collections.ts';
import type { ConnectionService } from './connections.ts';
import { ProviderError, type ProviderContact } from './providers/index.ts';
import { TERMINAL, ZERO_COUNTS, type RunCounts, type RunStatus } from './runs.ts';
import { integrationStore as store, type RunRow } from './store.ts';
import { storeRunRecords, writeRunFile, type OutputRow } from './outputs.ts';
import { Cancelled, createAudiencePush, PUSH_KINDS, RunFailure, type AudienceDeliveries, type PushWork } from './push.ts';

export interface RunnerDeps {
  db: Kysely<DB>;
  clock: Clock;
  filesDir: string;
  connections: ConnectionService;
  matching: Pick<MatchingService, 'matchUnbilled'>;
  billing: Pick<BillingService, 'reserveCents' | 'settle' | 'release'>;
  termsOf(orgId: string): Promise<ContractTerms>;
  events: Pick<EventService, 'emit'>;
  /** The organization's default match collection: a completed batch_enrichment, file_enrichment or ingest run captures its matched identities (decision 050). */
  collections: Pick<CollectionService, 'ensureDefault'>;
  maxContacts: number;
  /** The deliveries area, for the kinds that push an audience (activation, export). */
  deliveries: AudienceDeliveries;
  /** Wall-clock wait for a push run's delivery, and its polling interval. */
  deliveryWaitMs?: number;
  deliveryPollMs?: number;
}

/** A provider value as text: lists joined with `;`, nothing for null. */
export function providerValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.length ? value.map(String).join(';') : null;
  return String(value);
}

type Update = { id: string; properties: Record<string, string> };
/**
 * What the pull phase leaves for the boundary: provider writes (batch_enrichment) or output rows (file_enrichment,
 * ingest), and the graph person keys of the matched contacts (captured into the collection at completion).
 */
interface Pulled {
  updates: Update[];
  rows: OutputRow[];
  contacts: Map<string, ProviderContact>;
  keys: string[];
  members?: PushWork['members'];
}

export function createRunner(deps: RunnerDeps) {
  const { db, clock, connections } = deps;

  const move = (id: string, from: RunStatus[], set: Parameters<typeof store.moveRun>[3]) =>
    store.moveRun(db, id, from, { ...set, updated_at: clock.now() });
  const saveCounts = (id: string, counts: RunCounts) =>
    store.updateRun(db, id, { counts: JSON.stringify(counts), updated_at: clock.now() });
  const push = createAudiencePush({
    db,
    clock,
    connections,
    deliveries: deps.deliveries,
    deliveryWaitMs: deps.deliveryWaitMs ?? 600_000,
    pollMs: deps.deliveryPollMs ?? 500,
  });

  /** The selected fields' values of a matched record, as provider text, keyed by `key(field)`. */
  function valuesOf(record: Record<string, unknown>, fields: string[], key: (f: string) => string) {
    const values: Record<string, string> = {};
    for (const f of fields) {
      const value = providerValue(record[enrichmentKey(f)]);
      if (value !== null) values[key(f)] = value;
    }
    return values;
  }

  /** Sorts one matched contact into the counts and the work left for the boundary, by kind. */
  function take(run: RunRow, fields: string[], contact: ProviderContact, record: Record<string, unknown>, counts: RunCounts, out: Pulled) {
    const adapter = connections.adapterOf(run.provider);
    if (run.kind === 'batch_enrichment') {
      const values = valuesOf(record, fields, adapter.propertyName);
      if (Object.keys(values).length === 0) counts.skipped++;
      else if (Object.entries(values).every(([p, v]) => (contact.properties[p] ?? null) === v)) counts.unchanged++;
      else out.updates.push({ id: contact.id, properties: values });
      return;
    }
    const values = valuesOf(record, fields, (f) => f);
    const row = {
      provider_contact_id: contact.id,
      iag_person_id: (record.iag_person_id as string | null) ?? null,
      match_level: (record.match_level as string | null) ?? null,
      values,
    };
    // A file row without any value says nothing: skipped. An ingest keeps every matched identity.
    if (run.kind === 'file_enrichment' && Object.keys(values).length === 0) counts.skipped++;
    else out.rows.push(row);
    // A push run (activation, export) looks the contact up again by person.
    if (PUSH_KINDS.includes(run.kind)) out.contacts.set(contact.id, contact);
  }

  async function pullAndMatch(run: RunRow, fields: string[], counts: RunCounts): Promise<Pulled> {
    const adapter = connections.adapterOf(run.provider);
    const properties = fields.map((f) => adapter.propertyName(f));
    const out: Pulled = { updates: [], rows: [], contacts: new Map(), keys: [] };
    let after: string | null = null;
    do {
      const current = (await store.runById(db, run.id))!;
      if (current.cancel_requested) throw new Cancelled();
      const limit = Math.min(100, deps.maxContacts - counts.input);
      const page = await connections.withToken(run.connection_id, run.org_id, (t) => adapter.readContacts(t, { after, limit, properties }));
      after = page.after;
      counts.input += page.contacts.length;
      const usable = page.contacts.map((c) => ({ c, record: adapter.matchRecord(c) })).filter((x) => Object.keys(x.record).length > 0);
      if (usable.length > 0) {
        const result = await deps.matching.matchUnbilled(
          { orgId: run.org_id, userId: run.created_by },
          {
            records: usable.map((x) => x.record),
            field_list: fields,
          },
        );
        result.records.forEach((r, i) => {
          if (r.match_level === null) return;
          counts.matched++;
          const key = result.person_keys[i];
          if (key) out.keys.push(key);
          take(run, fields, usable[i]!.c, r as Record<string, unknown>, counts, out);
        });
      }
      await saveCounts(run.id, counts);
    } while (after && counts.input < deps.maxContacts);
    return out;
  }

  /** Contacts charged for enrichment fields: every write or file row carries a value; an ingest row may not. */
  const fieldQuantity = (out: Pulled) => out.updates.length + out.rows.filter((r) => Object.keys(r.values).length > 0).length;

  async function reserve(run: RunRow, terms: ContractTerms, fields: string[], counts: RunCounts, charged: number): Promise<Reservation[]> {
    // A push run charges nothing of its own: its delivery of the audience is billed (decision 038).
    if (run.billing_source !== 'native' || PUSH_KINDS.includes(run.kind)) return [];
    const rates = terms.usage_rates;
    const fieldUnit = fields.reduce((sum, f) => sum + (rates.enrichment_field[f] ?? rates.enrichment_field.default ?? 0), 0);
    const details = {
      integration_run_id: run.id,
      provider: run.provider,
      kind: run.kind,
      selected_fields: fields,
      usage_discount_bps: terms.usage_discount_bps,
    };
    return [
      await deps.billing.reserveCents({
        orgId: run.org_id,
        kind: 'integration.match',
        unitPriceCents: rates.match.microbatch,
        ceilingQuantity: counts.matched,
        ceilingCents: rates.match.microbatch * counts.matched,
        fingerprint: run.id,
        idempotencyKey: `integration_run:${run.id}:match`,
        details,
      }),
      await deps.billing.reserveCents({
        orgId: run.org_id,
        kind: 'integration.enrichment_field',
        unitPriceCents: fieldUnit,
        ceilingQuantity: charged,
        ceilingCents: fieldUnit * charged,
        fingerprint: run.id,
        idempotencyKey: `integration_run:${run.id}:enrichment_field`,
        details,
      }),
    ];
  }

  async function writeBack(run: RunRow, updates: Update[], counts: RunCounts) {
    const adapter = connections.adapterOf(run.provider);
    if (updates.length === 0) return;
    const names = [...new Set(updates.flatMap((u) => Object.keys(u.properties)))];
    // Remembered first: a crash after creating them still leaves them to app_data_policy remove (a missing one is skipped there).
    await connections.noteProperties((await store.connection(db, run.org_id, run.connection_id))!, names);
    await connections.withToken(run.connection_id, run.org_id, (t) => adapter.ensureProperties(t, names));
    for (let i = 0; i < updates.length; i += adapter.writeBatchSize) {
      const batch = updates.slice(i, i + adapter.writeBatchSize);
      const result = await connections.withToken(run.connection_id, run.org_id, (t) => adapter.writeBack(t, batch));
      counts.applied += result.applied.length;
      counts.failed += result.failed.length;
      counts.delivered += batch.length;
      await saveCounts(run.id, counts);
    }
  }

  /** The work between awaiting_boundary and the boundary itself, by kind. */
  async function deliver(run: RunRow, fields: string[], out: Pulled, counts: RunCounts) {
    if (run.kind === 'batch_enrichment' || run.kind === 'export') return writeBack(run, out.updates, counts);
    if (run.kind === 'activation') return push.activate(run, out.members ?? [], counts);
    if (run.kind === 'file_enrichment') await writeRunFile(deps.filesDir, run.org_id, run.id, fields, out.rows);
    else await storeRunRecords(db, run.org_id, run.id, out.rows);
    counts.applied = out.rows.length;
    counts.delivered = out.rows.length;
  }

  /** integration_run.completed / .failed, in the transaction that ends the run. */
  async function emitEnd(
    trx: Kysely<DB>,
    run: RunRow,
    status: 'completed' | 'failed',
    counts: RunCounts,
    failure: { code: string; message: string } | null,
    at: Date,
  ) {
    const conn = await store.connection(trx, run.org_id, run.connection_id);
    await deps.events.emit(trx, {
      orgId: run.org_id,
      type: `integration_run.${status}`,
      subject: { kind: 'integration_run', id: run.id, name: conn?.display_name ?? null },
      data: {
        status,
        run_id: run.id,
        provider: run.provider,
        connection_id: run.connection_id,
        kind: run.kind,
        billing_source: run.billing_source,
        counts: { ...counts },
        failure_code: failure?.code ?? null,
        failure_message: failure?.message ?? null,
        completed_at: at.toISOString(),
      },
    });
  }

  function failureOf(error: unknown): { code: string; message: string } {
    if (error instanceof RunFailure) return { code: error.code, message: error.message };
    if (error instanceof ProviderError) {
      const code =
        error.kind === 'rate_limited'
          ? 'PROVIDER_RATE_LIMITED'
          : error.kind === 'unauthorized'
            ? 'PROVIDER_UNAUTHORIZED'
            : 'PROVIDER_FAILED';
      return { code, message: error.message };
    }
    if (error instanceof DomainError)
      return { code: error.code === 'CONNECTION_NOT_FOUND' ? 'CONNECTION_REVOKED' : error.code, message: error.message };
    return { code: 'INTERNAL_ERROR', message: 'The run failed on an internal error.' };
  }

  async function execute(runId: string): Promise<void> {
    const run = await store.runById(db, runId);
    if (!run || (TERMINAL as string[]).includes(run.status)) return;
    // A retried job starts over: nothing is written before awaiting_boundary, and writes repeat as `unchanged`.
    if (
      !(await move(runId, ['created', 'processing', 'awaiting_boundary', 'settling'], {
        status: 'processing',
        counts: JSON.stringify(ZERO_COUNTS),
      }))
    )
      return;
    const fields = JSON.parse(run.selected_fields) as string[];
    const counts: RunCounts = { ...ZERO_COUNTS };
    let reservations: Reservation[] = [];
    try {
      const out: Pulled = PUSH_KINDS.includes(run.kind)
        ? {
            rows: [],
            contacts: new Map(),
            keys: [],
            ...(await push.prepare(run, fields, counts, (scratch) => pullAndMatch(run, fields, scratch))),
          }
        : await pullAndMatch(run, fields, counts);
      // Past this move a cancel is refused: the write-back (or the output) is about to start.
      if (
        !(await store.moveRun(
          db,
          runId,
          ['processing'],
          { status: 'awaiting_boundary', updated_at: clock.now() },
          { unlessCancelRequested: true },
        ))
      )
        throw new Cancelled();
      const terms = await deps.termsOf(run.org_id);
      const charged = fieldQuantity(out);
      reservations = await reserve(run, terms, fields, counts, charged);
      await deliver(run, fields, out, counts);
      const boundaryAt = clock.now();
      await move(runId, ['awaiting_boundary'], { status: 'settling', boundary_at: boundaryAt, counts: JSON.stringify(counts) });
      await db.transaction().execute(async (trx) => {
        if (reservations.length === 2) {
          const discountBps = terms.usage_discount_bps;
          await deps.billing.settle(trx, reservations[0]!, counts.matched, { discountBps });
          // Written (or output) contacts with a value; a failed write is not charged.
          await deps.billing.settle(trx, reservations[1]!, run.kind === 'batch_enrichment' ? counts.applied : charged, { discountBps });
        }
        const now = clock.now();
        // A push run matches no new identities (it pushes an audience's members): nothing to capture.
        const keys = PUSH_KINDS.includes(run.kind) ? [] : out.keys;
        const moved = await completeCapturing(trx, deps.collections, run, keys, { boundaryAt, now }, (capturedAt) =>
          store.moveRun(trx, runId, ['settling'], {
            status: 'completed',
            counts: JSON.stringify(counts),
            updated_at: now,
            completed_at: now,
            captured_at: capturedAt,
          }),
        );
        if (moved) await emitEnd(trx, run, 'completed', counts, null, now);
      });
    } catch (error) {
      for (const r of reservations) await deps.billing.release(r);
      const now = clock.now();
      if (error instanceof Cancelled) {
        await move(runId, ['processing'], { status: 'cancelled', counts: JSON.stringify(counts), completed_at: now });
        return;
      }
      const failure = failureOf(error);
      failure.message = failure.message.slice(0, 500);
      await db.transaction().execute(async (trx) => {
        const moved = await store.moveRun(trx, runId, ['processing', 'awaiting_boundary', 'settling'], {
          status: 'failed',
          counts: JSON.stringify(counts),
          failure_code: failure.code,
          failure_message: failure.message,
          completed_at: now,
          updated_at: now,
        });
        if (moved) await emitEnd(trx, run, 'failed', counts, failure, now);
      });
    }
  }

  return { execute };
}
