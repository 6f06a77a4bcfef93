/**
 * What the segments and audiences modules need from the rest of the service, as narrow ports so the
 * services stay testable and do not reach into the catalog, warehouse or webhook code directly.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { FilterCatalog, Zip3Resolver } from '../../graph/filters/index.ts';
import type { MembershipQuery } from '../../graph/membership/types.ts';

export interface ReleaseRef {
  major: number;
  minor: number;
}

export interface SegmentReadyEvent {
  orgId: string;
  segmentId: string;
  name: string;
  subtype: string;
  audienceId: string | null;
  recordCount: number | null;
  webhookUrl: string | null;
}

export interface GraphPorts {
  /** The live field catalog; throws when it cannot be read (-> 502 FILTER_CATALOG_UNAVAILABLE). */
  catalog(): Promise<FilterCatalog>;
  /** The current data release, or null while none was ever published. */
  currentRelease(): ReleaseRef | null;
  /** Exact person count of a membership query over the current release; `matched` counts members of included matched segments. */
  count(query: MembershipQuery): Promise<{ total: number; matched: number | null }>;
  /** State / city / ZIP5 -> ZIP3 regions, for the record_limit geography rule. */
  zip3: Zip3Resolver;
}

export interface EventPorts {
  /** Publishes segment.ready inside the caller's transaction (outbox). */
  segmentReady(trx: Kysely<DB>, event: SegmentReadyEvent): Promise<void>;
  /** Throws a 400 for a webhook_url the delivery policy refuses. */
  validateWebhookUrl(url: string): void;
}

/** No webhooks wired (tests of other modules, tools): events are dropped. */
export const noEvents: EventPorts = {
  async segmentReady() {},
  validateWebhookUrl() {},
};

/**
 * Matched segments (src/modules/file-match) plug in here: POST /v1/segments with subtype matched and
 * refresh of a matched segment are delegated to the file-match service, wired late by services.ts.
 */
export interface MatchedSegmentPort {
  create(viewer: { orgId: string; userId: string }, input: Record<string, unknown>): Promise<Record<string, unknown>>;
  refresh(viewer: { orgId: string; userId: string }, row: import('./store.ts').SegmentRow, input: Record<string, unknown>): Promise<Record<string, unknown>>;
}
