/**
 * The runs that push an audience to the provider (platform_to_provider; docs/decisions/038-integration-runs.md):
 *
 *   activation  the audience's members that are contacts at the provider go into a list this run creates
 *               (a HubSpot static list, a Mailchimp audience), with the selected fields written on them
 *   export      the selected fields of the audience's members are written to their provider contacts
 *
 * Both read the audience through a delivery of it (the export path: privacy suppression, licenses and the
 * delivery's own billing), created with the run and waited for. The platform exports no contact points, so a
 * delivered row reaches the provider through the provider's own contact of the same person: the run reads the
 * provider's contacts and matches them (unbilled), as the pulling kinds do. A retried job reuses the delivery
 * and the list it created.
 */
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { LIST_PREFIX, type ConnectionService } from './connections.ts';
import type { ListMember, ProviderContact } from './providers/types.ts';
import { ZERO_COUNTS, type RunCounts } from './runs.ts';
import { integrationStore as store, type RunRow } from './store.ts';
import type { OutputRow } from './outputs.ts';

/** What the integrations area needs of the deliveries area (wired from its public API). */
export interface AudienceDeliveries {
  /** Throws AUDIENCE_NOT_FOUND unless the audience is visible to the viewer. */
  check(viewer: Viewer, audienceId: string): Promise<void>;
  /** A download delivery (CSV, uncompressed) of the audience with these fields; unbilled when a partner bills the run. */
  create(viewer: Viewer, audienceId: string, fields: string[], options: { unbilled: boolean }): Promise<string>;
  get(viewer: Viewer, audienceId: string, deliveryId: string): Promise<{ status: string; failure_reason: string | null }>;
  rows(orgId: string, deliveryId: string): AsyncIterable<Record<string, string>>;
}

export const PUSH_KINDS: readonly string[] = ['activation', 'export'];

export class Cancelled extends Error {}

/** A run failure with its own code (the delivery failed or did not finish in time). */
export class RunFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Update = { id: string; properties: Record<string, string> };
/** The pull phase's output the push needs: the matched contacts (by id) and which person each is. */
export interface PulledContacts {
  rows: OutputRow[];
  contacts: Map<string, ProviderContact>;
}
export interface PushWork {
  updates: Update[];
  members: ListMember[];
}

export function createAudiencePush(deps: {
  db: Kysely<DB>;
  clock: Clock;
  connections: ConnectionService;
  deliveries: AudienceDeliveries;
  /** How long a run waits for its delivery (wall clock), and how often it looks. */
  deliveryWaitMs: number;
  pollMs: number;
}) {
  const { db, clock, connections } = deps;
  const saveCounts = (id: string, counts: RunCounts) =>
    store.updateRun(db, id, { counts: JSON.stringify(counts), updated_at: clock.now() });

  /** Delivers the audience (or finds the run's delivery), waits for it; returns its id. */
  async function delivered(run: RunRow, fields: string[]): Promise<string> {
    const viewer = { orgId: run.org_id, userId: run.created_by };
    const audienceId = run.audience_id!;
    let deliveryId = run.delivery_id;
    if (!deliveryId) {
      deliveryId = await deps.deliveries.create(viewer, audienceId, fields, { unbilled: run.billing_source !== 'native' });
      await store.updateRun(db, run.id, { delivery_id: deliveryId, updated_at: clock.now() });
    }
    const deadline = Date.now() + deps.deliveryWaitMs;
    for (;;) {
      if ((await store.runById(db, run.id))?.cancel_requested) throw new Cancelled();
      const d = await deps.deliveries.get(viewer, audienceId, deliveryId);
      if (d.status === 'completed') break;
      if (d.status === 'failed')
        throw new RunFailure(
          'DELIVERY_FAILED',
          `The delivery ${deliveryId} of audience ${audienceId} failed: ${d.failure_reason ?? 'no reason given'}`,
        );
      if (Date.now() > deadline)
        throw new RunFailure('DELIVERY_TIMEOUT', `The delivery ${deliveryId} of audience ${audienceId} did not complete in time.`);
      await new Promise((r) => setTimeout(r, deps.pollMs));
    }
    return deliveryId;
  }

  return {
    /**
     * processing: deliver the audience, read and match the provider's contacts, and sort each delivered row:
     * `input` = delivered rows; `matched` = rows whose person is a contact at the provider; then (export)
     * skipped / unchanged / an update, or (activation) skipped (no email) / a list member.
     */
    async prepare(
      run: RunRow,
      fields: string[],
      counts: RunCounts,
      pull: (scratch: RunCounts) => Promise<PulledContacts>,
    ): Promise<PushWork> {
      const deliveryId = await delivered(run, fields);
      // The provider's contacts (at most the run's contact limit) are read first; the delivered rows are then streamed.
      const pulled = await pull({ ...ZERO_COUNTS });
      const adapter = connections.adapterOf(run.provider);
      const contactOf = new Map<string, ProviderContact>();
      for (const r of pulled.rows)
        if (r.iag_person_id && !contactOf.has(r.iag_person_id)) contactOf.set(r.iag_person_id, pulled.contacts.get(r.provider_contact_id)!);
      const work: PushWork = { updates: [], members: [] };
      Object.assign(counts, ZERO_COUNTS);
      const seen = new Set<string>();
      for await (const row of deps.deliveries.rows(run.org_id, deliveryId)) {
        counts.input++;
        const contact = row.iag_person_id ? contactOf.get(row.iag_person_id) : undefined;
        if (!contact || seen.has(contact.id)) continue;
        seen.add(contact.id);
        counts.matched++;
        const values: Record<string, string> = {};
        for (const f of fields) if (row[f] !== undefined && row[f] !== '') values[adapter.propertyName(f)] = row[f]!;
        if (run.kind === 'export') {
          if (Object.keys(values).length === 0) counts.skipped++;
          else if (Object.entries(values).every(([p, v]) => (contact.properties[p] ?? null) === v)) counts.unchanged++;
          else work.updates.push({ id: contact.id, properties: values });
          continue;
        }
        const email = adapter.matchRecord(contact).email;
        if (!email) counts.skipped++;
        else work.members.push({ contact, email, properties: values });
      }
      await saveCounts(run.id, counts);
      return work;
    },

    /** activation at the boundary: create the list once, write the properties, add the members batch by batch. */
    async activate(run: RunRow, members: ListMember[], counts: RunCounts) {
      const adapter = connections.adapterOf(run.provider);
      if (!adapter.lists) throw new RunFailure('PROVIDER_FAILED', `${run.provider} has no lists to activate an audience into.`);
      const lists = adapter.lists;
      const connection = async () => (await store.connection(db, run.org_id, run.connection_id))!;
      let listId = (await store.runById(db, run.id))!.provider_list_id;
      if (!listId) {
        const created = await connections.withToken(run.connection_id, run.org_id, (t) =>
          lists.createList(t, `Audience ${run.audience_id} (${run.id})`),
        );
        listId = created;
        await connections.noteProperties(await connection(), [`${LIST_PREFIX}${created}`]);
        await store.updateRun(db, run.id, { provider_list_id: created, updated_at: clock.now() });
      }
      const names = [...new Set(members.flatMap((m) => Object.keys(m.properties)))];
      if (names.length > 0) {
        await connections.noteProperties(await connection(), names);
        await connections.withToken(run.connection_id, run.org_id, (t) => adapter.ensureProperties(t, names));
      }
      for (let i = 0; i < members.length; i += lists.pushBatchSize) {
        const batch = members.slice(i, i + lists.pushBatchSize);
        const result = await connections.withToken(run.connection_id, run.org_id, (t) => lists.addMembers(t, listId, batch));
        counts.applied += result.applied.length;
        counts.unchanged += result.unchanged.length;
        counts.failed += result.failed.length;
        counts.delivered += result.applied.length + result.failed.length;
        await saveCounts(run.id, counts);
      }
    },
  };
}
