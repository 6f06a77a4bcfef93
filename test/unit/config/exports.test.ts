import { describe, expect, it } from 'vitest';
import { exportSettings } from '../../../src/config/exports.ts';
import { ConfigError } from '../../../src/config/settings.ts';

describe('EXPORT_RENDERED_ROWS', () => {
  it('defaults to standard_enrichment in csv and avro; none turns rendering off', () => {
    expect(exportSettings({}).renderedRows).toEqual([
      { template: 'standard_enrichment', format: 'csv' },
      { template: 'standard_enrichment', format: 'avro' },
    ]);
    expect(exportSettings({ EXPORT_RENDERED_ROWS: 'none' }).renderedRows).toEqual([]);
    expect(exportSettings({ EXPORT_RENDERED_ROWS: ' standard_iag:jsonl , standard_enrichment:json' }).renderedRows).toEqual([
      { template: 'standard_iag', format: 'jsonl' },
      { template: 'standard_enrichment', format: 'json' },
    ]);
  });

  it('refuses what is not template:format with a known format', () => {
    for (const bad of ['standard_enrichment', 'standard_enrichment:xml', 'a:csv:gzip', ':csv', 'Bad Name:csv']) {
      expect(() => exportSettings({ EXPORT_RENDERED_ROWS: bad })).toThrow(ConfigError);
    }
  });
});
