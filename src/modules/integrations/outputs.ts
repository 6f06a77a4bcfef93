/**
 * Where the matched contacts of a run that does not write back go (docs/decisions/038-integration-runs.md):
 *
 *   file_enrichment  a CSV file in the files folder (INTEGRATION_FILES_DIR, default DATA_DIR/integration-runs; <org>/<run>.csv), written
 *                    to a temporary name and renamed into place (the boundary `file_available`), read with
 *                    GET /v1/integration-runs/{id}/file
 *   ingest           rows of integration_run_records (the boundary `api_response`), read with
 *                    GET /v1/integration-runs/{id}/records
 *
 * A retried job writes both again from the first row (same file name, same record numbers).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { csvCell } from '../../export-engine/index.ts';
import { recordStore } from './store.ts';

export interface OutputRow {
  provider_contact_id: string;
  iag_person_id: string | null;
  match_level: string | null;
  values: Record<string, string>;
}

export const runFilePath = (filesDir: string, orgId: string, runId: string) => path.join(filesDir, orgId, `${runId}.csv`);

/** Writes the enriched file: provider_contact_id, iag_person_id, match_level, then the selected fields. */
export async function writeRunFile(filesDir: string, orgId: string, runId: string, fields: string[], rows: OutputRow[]): Promise<void> {
  const target = runFilePath(filesDir, orgId, runId);
  await fs.promises.mkdir(path.dirname(target), { recursive: true });
  const lines = [['provider_contact_id', 'iag_person_id', 'match_level', ...fields].map(csvCell).join(',')];
  for (const r of rows)
    lines.push(
      [r.provider_contact_id, r.iag_person_id ?? '', r.match_level ?? '', ...fields.map((f) => r.values[f] ?? '')].map(csvCell).join(','),
    );
  const temporary = `${target}.${process.pid}.tmp`;
  await fs.promises.writeFile(temporary, `${lines.join('\n')}\n`);
  await fs.promises.rename(temporary, target);
}

export async function storeRunRecords(db: Kysely<DB>, orgId: string, runId: string, rows: OutputRow[]): Promise<void> {
  await recordStore.replace(
    db,
    runId,
    rows.map((r, i) => ({
      run_id: runId,
      seq: i + 1,
      org_id: orgId,
      provider_contact_id: r.provider_contact_id,
      iag_person_id: r.iag_person_id,
      match_level: r.match_level,
      field_values: JSON.stringify(r.values),
    })),
  );
}
