/**
 * The collections part of the integrations area (decision 050): execution-key runs of partner clients,
 * integration match collections, their refresh job and their operations. Built by the area's factory.
 */
import fs from 'node:fs';
import type { Kysely } from 'kysely';
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
  /** The warehouse (DuckDB): reads and writes Parquet member sets. */
  warehouse: { query(sql: string): Promise<Record<string, unknown>[]> };
  dataDir: string;
  clientStanding: ClientStandingPort;
}

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

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
    async writeMembers(keys, target) {
      const csv = `${target}.csv`;
      fs.writeFileSync(csv, `${keys.join('\n')}\n`);
      try {
        await warehouse.query(
          `COPY (SELECT DISTINCT person_key FROM read_csv(${lit(csv)}, header = false, columns = {'person_key': 'BIGINT'}) ORDER BY person_key) TO ${lit(target)} (FORMAT parquet)`,
        );
      } finally {
        fs.rmSync(csv, { force: true });
      }
    },
  });
  const refresh = createCollectionRefresh({
    db,
    clock,
    collections,
    segments: deps.segments,
    events: deps.events,
    readMembers: async (file) =>
      (await warehouse.query(`SELECT CAST(person_key AS VARCHAR) AS k FROM read_parquet(${lit(file)}) ORDER BY person_key`)).map((r) =>
        String(r.k),
      ),
  });
  return {
    executions,
    collections,
    refresh,
    operations: collectionOperations({ collections }),
    jobDefinitions: (): JobDefinition[] => [refresh.definition],
  };
}
