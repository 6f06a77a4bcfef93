/** The catalog's standard_enrichment fields as export field descriptors (what the deliveries module will pass). */
import type { ExportField } from '../../src/export-engine/index.ts';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import { CATALOG_TEMPLATES } from '../../src/modules/catalog/templates.ts';

export function templateFields(templateId: 'standard_enrichment' | 'standard_iag'): ExportField[] {
  const names = CATALOG_TEMPLATES.find((t) => t.template_id === templateId)!.fields;
  return names.map((n) => {
    const f = CATALOG_FIELDS.find((c) => c.name === n)!;
    return {
      name: f.name,
      type: f.type,
      pii: f.pii,
      storage: f.storage,
      ...(f.type === 'STRING' && f.enum_values ? { enumValues: f.enum_values } : {}),
    };
  });
}
