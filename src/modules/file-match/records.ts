/**
 * One uploaded row -> a Match input record (spec 2), through the column mappings only: a column that
 * is unmapped or `(skip)` is never read, whatever its name. CSV cells cannot carry arrays, so array
 * attributes in CSV are accepted as JSON text or `;`/`|`-separated values.
 */
import { SKIP } from './analysis.ts';

const ARRAY_ATTRS = new Set(['emails', 'phones', 'emails_sha256', 'phones_sha256']);

function text(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object' && v !== null && 'string' in v) return String((v as { string: unknown }).string); // avro union {string: "..."}
  return undefined;
}

function list(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (typeof v !== 'string' || !v.trim()) return undefined;
  const s = v.trim();
  if (s.startsWith('[')) {
    try {
      const parsed = JSON.parse(s);
      return Array.isArray(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return s
    .split(/[;|]/)
    .map((x) => x.trim())
    .filter(Boolean);
}

export function compileMapping(mappings: Record<string, string>) {
  const pairs = Object.entries(mappings).filter(([, attr]) => attr && attr !== SKIP && attr !== 'row_id');
  const rowIdColumn = Object.entries(mappings).find(([, attr]) => attr === 'row_id')?.[0] ?? null;
  return {
    rowIdColumn,
    toRecord(row: Record<string, unknown>): Record<string, unknown> {
      const out: Record<string, unknown> = {};
      for (const [col, attr] of pairs) {
        const v = row[col];
        if (attr === 'addresses') {
          const a = list(v);
          if (a) out.addresses = a.filter((e) => e && typeof e === 'object');
        } else if (ARRAY_ATTRS.has(attr)) {
          const a = list(v)
            ?.map(text)
            .filter((x): x is string => !!x);
          if (a?.length) out[attr] = a;
        } else {
          const t = text(v);
          if (t !== undefined) out[attr] = t;
        }
      }
      return out;
    },
  };
}
