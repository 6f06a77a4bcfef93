/** The matched subtype's own fields of a segment (stored in its details), typed. */
export interface MatchedDetails {
  file_format: 'csv' | 'avro' | 'json' | 'jsonl';
  shard_count: number;
  column_mappings: Record<string, string> | null;
  mapping_confirmed: boolean;
  hitl: boolean;
  session_id?: string;
}

/** Reads the stored JSON, defaulting what older rows lack. */
export function matchedDetails(raw: unknown): MatchedDetails {
  const d = (raw ?? {}) as Partial<MatchedDetails>;
  return {
    file_format: d.file_format ?? 'csv',
    shard_count: d.shard_count ?? 1,
    column_mappings: d.column_mappings ?? null,
    mapping_confirmed: d.mapping_confirmed === true,
    hitl: d.hitl === true,
    ...(d.session_id ? { session_id: d.session_id } : {}),
  };
}
