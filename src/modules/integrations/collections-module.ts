/**
 * The collections part of the integrations area (decision 050): execution-key runs of partner clients,
 * integration match collections, their refresh job and their operations. Built by the area's factory.
 */
import type { Kysely } from 'kysely';
import { readMemberSet, writeMemberSet, type FileStatements } from '../../graph/index.ts';
import type { DB } from '../../db/schema.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import { ObjectStore } from '../../objects/store.ts';
import type { Privacy } from '../privacy/index.ts';
import type { SegmentsApi } from '../segments/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { createCollectionRefresh } from './collections-capture.ts';
import { collectionOperations } from './collections-operations.ts';
import { createCollectionService } from './collections.ts';
import { createExecutionService, type ClientStandingPort } from './execution-key.ts';

export interface CollectionsPartDeps {
  privacy: Pick<Privacy, 'shownCount'>;
  segments: SegmentsApi;
  /** The warehouse: reads and writes the member sets of collections (graph member-files.ts). */
  warehouse: FileStatements;
  dataDir: string;
  clientStanding: ClientStandingPort;
}

export function createCollectionsPart(deps: CollectionsPartDeps & { db: Kysely<DB>; clock: Clock; events: Pick<EventService, 'emit'> }) {
  const { db, clock, warehouse } = deps;
  const objects = new ObjectStore(deps.dataDir);
  const executions = createExecutionService({ db, clock, clientStanding: deps.clientStanding });
  const collections = createCollectionService({
    db,
    clock,
    privacy: deps.privacy,
    segments: deps.segments,
    objectPath: (key) => objects.pathOf(key),
    writeMembers: (keys, target) => writeMemberSet(warehouse, target, keys),
  });
  const refresh = createCollectionRefresh({
    db,
    clock,
    collections,
    segments: deps.segments,
    events: deps.events,
    readMembers: (file) => readMemberSet(warehouse, file),
  });
  return {
    executions,
    collections,
    refresh,
    operations: collectionOperations({ collections }),
    jobDefinitions: (): JobDefinition[] => [refresh.definition],
  };
}
