/**
 * What the segments area needs from the graph, as one narrow port so its services stay testable and
 * do not reach into the warehouse directly (shared/graph-ports.ts builds it over the warehouse).
 */
import type { FilterCatalog, Zip3Resolver } from '../../../graph/index.ts';
import type { MembershipQuery } from '../../../graph/index.ts';
import type { Measured } from '../../privacy/index.ts';
import type { EventService } from '../../webhooks/index.ts';

export interface ReleaseRef {
  major: number;
  minor: number;
  /** Persons in the release (sizes the privacy layer's sample); absent where not known. */
  persons?: number;
  /** The release's file (keys what the privacy layer reads once per release); absent where not known. */
  file?: string;
}

export interface GraphPorts {
  /** The live field catalog; throws when it cannot be read (-> 502 FILTER_CATALOG_UNAVAILABLE). */
  catalog(): Promise<FilterCatalog>;
  /** The current data release, or null while none was ever published. */
  currentRelease(): ReleaseRef | null;
  /** Exact person count of a membership query over the current release; `matched` counts members of included matched segments. */
  count(query: MembershipQuery): Promise<{ total: number; matched: number | null; measured?: Measured }>;
  /** State / city / ZIP5 -> ZIP3 regions, for the record_limit geography rule. */
  zip3: Zip3Resolver;
}

/** The events the area publishes, inside the caller's transaction (outbox), and the webhook URL check. */
export type EventPorts = Pick<EventService, 'emit' | 'validateWebhookUrl'>;
