/**
 * Shared fixtures of the export tests: the small generated graph of the segment tests (one per worker,
 * cached on disk), a warehouse over it, and catalog fields as export field descriptors.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import avro from 'avsc';
import { parse } from 'csv-parse/sync';
import type { ExportField } from '../../src/export-engine/index.ts';
import { openWarehouse, type Warehouse } from '../../src/graph/warehouse.ts';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import { CATALOG_TEMPLATES } from '../../src/modules/catalog/templates.ts';
import { testGraph } from '../segments/graph.ts';

let shared: Promise<Warehouse> | null = null;

export function exportWarehouse(): Promise<Warehouse> {
  shared ??= testGraph().then((g) => openWarehouse({ dataDir: g.dataDir, threads: 1, connections: 2, memoryLimit: '512MB' }));
  return shared;
}

export function catalogFields(names: readonly string[]): ExportField[] {
  return names.map((n) => {
    const f = CATALOG_FIELDS.find((c) => c.name === n);
    if (!f) throw new Error(`no catalog field ${n}`);
    return {
      name: f.name,
      type: f.type,
      pii: f.pii,
      storage: f.storage,
      ...(f.type === 'STRING' && f.enum_values ? { enumValues: f.enum_values } : {}),
    };
  });
}

export const STANDARD_ENRICHMENT = CATALOG_TEMPLATES.find((t) => t.template_id === 'standard_enrichment')!.fields;

export const tempDir = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `ads-export-${name}-`));

export const readCsv = (file: string): Record<string, string>[] => parse(fs.readFileSync(file), { columns: true });

export const readJsonLines = (file: string): Record<string, unknown>[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

export function readAvro(file: string): Promise<{ schema: avro.Schema; codec: string; records: Record<string, unknown>[] }> {
  return new Promise((resolve, reject) => {
    const records: Record<string, unknown>[] = [];
    let schema: avro.Schema = 'null';
    let codec = '';
    avro
      .createFileDecoder(file)
      // The schema as written in the file header (avsc's parsed type drops logicalType attributes).
      .on('metadata', (_type: avro.Type, c: string, header: { meta: Record<string, Buffer> }) => {
        schema = JSON.parse(header.meta['avro.schema']!.toString()) as avro.Schema;
        codec = c;
      })
      .on('data', (r: Record<string, unknown>) => records.push({ ...r }))
      .on('error', reject)
      .on('end', () => resolve({ schema, codec, records }));
  });
}
