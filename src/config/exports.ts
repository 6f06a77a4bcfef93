/** The exports section: which field templates each release keeps rendered, per format (decision 022). */
import { ConfigError } from './settings.ts';

export type RenderedFormat = 'csv' | 'json' | 'jsonl' | 'avro';

export interface RenderedRowsSetting {
  /** A catalog template id (standard_enrichment, standard_iag). */
  template: string;
  format: RenderedFormat;
}

export interface ExportSettings {
  /**
   * EXPORT_RENDERED_ROWS: `template:format` pairs, comma-separated, whose rows a process that runs
   * export jobs renders beside each release after start (about 250 bytes a person for
   * standard_enrichment in csv or avro; json lines take 2.6 times that), so audience deliveries of
   * that template and format copy rows instead of encoding them. `none` renders nothing. Default:
   * standard_enrichment in csv and avro.
   */
  renderedRows: RenderedRowsSetting[];
}

const FORMATS: readonly RenderedFormat[] = ['csv', 'json', 'jsonl', 'avro'];

export function exportSettings(env: NodeJS.ProcessEnv): ExportSettings {
  const raw = (env.EXPORT_RENDERED_ROWS ?? 'standard_enrichment:csv,standard_enrichment:avro').trim();
  if (raw === 'none' || raw === '') return { renderedRows: [] };
  const renderedRows = raw.split(',').map((item) => {
    const [template, format, extra] = item.trim().split(':');
    if (!template || !format || extra !== undefined || !/^[a-z0-9_]{1,100}$/.test(template)) {
      throw new ConfigError(`EXPORT_RENDERED_ROWS: "${item.trim()}" is not template:format`);
    }
    if (!FORMATS.includes(format as RenderedFormat))
      throw new ConfigError(`EXPORT_RENDERED_ROWS: unknown format "${format}" (csv, json, jsonl or avro)`);
    return { template, format: format as RenderedFormat };
  });
  return { renderedRows };
}
