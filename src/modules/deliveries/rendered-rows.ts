/**
 * The rendered rows of the current release (src/export-engine/rendered): built after start for the
 * configured templates and formats (EXPORT_RENDERED_ROWS), and looked up by the export job, so an
 * audience delivery of such a template and format copies each member's row instead of reading and
 * encoding it. Files are write-once sidecars of the release (temp file + rename), so two processes
 * building the same one is harmless; a release without them exports row by row, with the same bytes.
 */
import fs from 'node:fs';
import { buildRenderedRows, renderedRowsPathOf, type BuiltRenderedRows, type ExportWarehouse } from '../../export-engine/index.ts';
import type { CatalogField, CatalogTemplate } from '../../graph/index.ts';
import type { RenderedRowsSetting } from '../../config/exports.ts';
import { exportFieldOf } from './request.ts';

export interface RenderedRowsDeps {
  warehouse: ExportWarehouse;
  /** The file of the release the warehouse reads now. */
  releaseFile: () => Promise<string>;
  catalog: () => Promise<{ fields: readonly CatalogField[]; templates: readonly CatalogTemplate[] }>;
  settings: readonly RenderedRowsSetting[];
  log?: { warn(obj: object, msg: string): void };
}

export function createRenderedRows(deps: RenderedRowsDeps) {
  return {
    /** Builds what the settings name and the current release lacks, one file after another; stops between chunks when aborted. */
    async warm(o: { signal?: AbortSignal } = {}): Promise<BuiltRenderedRows[]> {
      if (deps.settings.length === 0) return [];
      const [releaseFile, catalog] = await Promise.all([deps.releaseFile(), deps.catalog()]);
      const built: BuiltRenderedRows[] = [];
      for (const s of deps.settings) {
        if (o.signal?.aborted) break;
        const template = catalog.templates.find((t) => t.template_id === s.template);
        if (!template) {
          deps.log?.warn({ template: s.template }, 'EXPORT_RENDERED_ROWS names an unknown template; skipped');
          continue;
        }
        const fields = template.fields.map((name) => exportFieldOf(catalog.fields.find((f) => f.name === name)!));
        built.push(
          await buildRenderedRows({
            warehouse: deps.warehouse,
            releaseFile,
            fields,
            format: s.format,
            ...(o.signal ? { signal: o.signal } : {}),
          }),
        );
      }
      return built;
    },
    /** The lookup an export of the current release gives the engine: the rendered rows of a key, when built. */
    async lookup(): Promise<(key: string) => string | null> {
      const releaseFile = await deps.releaseFile();
      return (key) => {
        const path = renderedRowsPathOf(releaseFile, key);
        return fs.existsSync(path) ? path : null;
      };
    },
  };
}
