/**
 * Wires segments, audiences, campaigns and their lifecycle jobs from narrow ports. The graph port can
 * be swapped after construction (`useGraph`), because the warehouse and catalog services are built
 * elsewhere and tests point it at a small generated release.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { readCurrentRelease } from '../../graph/releases.ts';
import type { EventService } from '../webhooks/events.ts';
import { createAudienceOperations } from '../audiences/operations.ts';
import { createAudienceService } from '../audiences/service.ts';
import { createCampaignService } from '../campaigns/service.ts';
import { lifecycleJobDefinitions } from '../lifecycle/jobs.ts';
import { createSegmentOperations } from './operations.ts';
import type { EventPorts, GraphPorts, MatchedSegmentPort } from './ports.ts';
import { createSegmentContext, createSegmentService } from './service.ts';
import { referenceZip3Resolver } from './zip3.ts';

/** Until a warehouse is wired: releases from the pointer file, everything else unavailable. */
export function unwiredGraph(dataDir: string): GraphPorts {
  return {
    catalog: async () => { throw new Error('field catalog not wired'); },
    currentRelease: () => readCurrentRelease(dataDir),
    count: async () => { throw new Error('warehouse not wired'); },
    zip3: referenceZip3Resolver(),
  };
}

/** EventPorts over the webhooks module's emitter (segment.ready on filter segment creation and refresh). */
export function webhookEventPorts(events: Pick<EventService, 'emit' | 'validateWebhookUrl'>): EventPorts {
  return {
    async segmentReady(trx, e) {
      await events.emit(trx, {
        orgId: e.orgId,
        type: 'segment.ready',
        subject: { kind: 'segment', id: e.segmentId, name: e.name },
        data: { status: 'completed', subtype: e.subtype, audience_id: e.audienceId, record_count: e.recordCount },
        webhookUrl: e.webhookUrl,
      });
    },
    validateWebhookUrl: (url) => events.validateWebhookUrl(url),
  };
}

export function createSegmentsModule(deps: { db: Kysely<DB>; queue: JobQueue; clock: Clock; graph: GraphPorts; events: EventPorts; countTimeoutMs?: number }) {
  let graph = deps.graph;
  const graphProxy: GraphPorts = {
    catalog: () => graph.catalog(),
    currentRelease: () => graph.currentRelease(),
    count: (q) => graph.count(q),
    zip3: (field, values, opts) => graph.zip3(field, values, opts),
  };
  let matched: MatchedSegmentPort | null = null;
  const ctx = createSegmentContext({ ...deps, graph: graphProxy, matched: () => matched });
  const segments = createSegmentService(ctx);
  const segmentOperations = createSegmentOperations(ctx);
  const audiences = createAudienceService(ctx);
  const audienceOperations = createAudienceOperations(ctx, audiences, segmentOperations);
  const campaigns = createCampaignService({ db: deps.db, clock: deps.clock });
  return {
    segments,
    segmentOperations,
    audiences,
    audienceOperations,
    campaigns,
    /** The discovery input port (segment_id, audience_id, segment_ids + set_logic + excluded_segment_ids). */
    segmentInputResolver: { resolveSegmentInput: audienceOperations.resolveSegmentInput },
    jobDefinitions: () => lifecycleJobDefinitions({ db: deps.db, graph: graphProxy, clock: deps.clock }),
    useGraph(next: GraphPorts): void {
      graph = next;
    },
    /** File matching plugs matched create/refresh in (src/modules/file-match). */
    useMatched(port: MatchedSegmentPort): void {
      matched = port;
    },
  };
}

export type SegmentsModule = ReturnType<typeof createSegmentsModule>;
