/**
 * The CSV fast path (formats/csv-fast.ts) against csv-parse with read.ts's options, on generated shards: the same
 * header and records for well-formed ones in any chunking (records and UTF-8 characters split across chunks), and
 * csv-parse's own answer (records or error) for the rest, through the fallback.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { fastCsvRows } from '../../../src/modules/file-match/upload-formats/csv-fast.ts';

const OPTIONS = { bom: true, relax_column_count: true, skip_empty_lines: true, trim: true };

/** csv-parse's answer: the header and records, or its error code. */
function reference(text: string): { header: string[] | null; records: Record<string, unknown>[] } | { error: string } {
  let header: string[] | null = null;
  try {
    const records = parse(text, { ...OPTIONS, columns: (h: string[]) => (header = h.map((c) => String(c).trim())) }) as Record<
      string,
      unknown
    >[];
    return { header, records };
  } catch (e) {
    return { error: (e as { code?: string }).code ?? 'ERROR' };
  }
}

async function* csvParseSkipping(text: string, skip: number, onHeader: (h: string[]) => void) {
  const records = parse(text, {
    ...OPTIONS,
    columns: (h: string[]) => {
      const c = h.map((x) => String(x).trim());
      onHeader(c);
      return c;
    },
  }) as Record<string, unknown>[];
  yield* records.slice(skip);
}

/** The fast path over `text` cut into chunks of `size` bytes (0: one chunk); fallbacks counted. */
async function fast(text: string, size: number) {
  const bytes = Buffer.from(text, 'utf8');
  let header: string[] | null = null;
  let fallbacks = 0;
  const source = async function* () {
    if (size === 0) {
      yield bytes;
      return;
    }
    for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
  };
  try {
    const records: Record<string, unknown>[] = [];
    const onHeader = (h: string[]) => {
      header = h;
    };
    for await (const r of fastCsvRows(source, onHeader, (skip) => {
      fallbacks++;
      return csvParseSkipping(text, skip, onHeader);
    }))
      records.push(r);
    return { result: { header, records }, fallbacks };
  } catch (e) {
    return { result: { error: (e as { code?: string }).code ?? 'ERROR' }, fallbacks };
  }
}

function lcg(seed: number) {
  let s = seed;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const WORDS = ['JOHN', 'Smith', 'a b', '', ' padded ', '\tTAB\t', '\u00a0nbsp\u00a0', 'Zoë', 'Nguyễn', '😀', '123', 'x\u2003y', "O'NEIL"];

/** A shard: mostly well-formed, sometimes with the damage csv-parse must judge. */
function shard(rnd: () => number, damaged: boolean): string {
  const crlf = rnd() < 0.4;
  const nl = crlf ? '\r\n' : '\n';
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const field = () => {
    const w = pick(WORDS);
    const r = rnd();
    if (r < 0.15) return `"${w},${pick(WORDS)}"`; // a comma inside quotes
    if (r < 0.25) return `"${w}""${pick(WORDS)}"""`; // escaped quotes
    if (r < 0.3) return `"${w}${nl}${pick(WORDS)}"`; // a line ending inside quotes
    if (r < 0.35) return ` "${w}" `; // space around a quoted field
    if (r < 0.38) return '""';
    return w;
  };
  const cols = 1 + Math.floor(rnd() * 5);
  const lines = [Array.from({ length: cols }, (_, i) => (rnd() < 0.1 ? ` col${i} ` : `col${i}`)).join(',')];
  const rows = Math.floor(rnd() * 12);
  for (let i = 0; i < rows; i++) {
    const r = rnd();
    if (r < 0.08) lines.push('');
    else if (r < 0.12) lines.push(pick([' ', '\t', ' \u00a0 ']));
    else lines.push(Array.from({ length: Math.max(1, cols + Math.floor(rnd() * 3) - 1) }, field).join(','));
  }
  let text = (rnd() < 0.15 ? '\ufeff' : '') + lines.join(nl) + (rnd() < 0.7 ? nl : '');
  if (damaged) {
    const at = Math.floor(rnd() * (text.length + 1));
    const damage = pick(['x"y', '"open', '"a"b', '\r', crlf ? '\n' : '\r\n']);
    text = text.slice(0, at) + damage + text.slice(at);
  }
  return text;
}

describe('CSV fast path', () => {
  it("gives csv-parse's header and records for well-formed shards, in any chunking, without falling back", async () => {
    const rnd = lcg(3);
    for (let i = 0; i < 400; i++) {
      const text = shard(rnd, false);
      const want = reference(text);
      for (const size of [0, 1, 3, 7, 64]) {
        const got = await fast(text, size);
        expect(got.result, `shard ${i} in chunks of ${size}: ${JSON.stringify(text)}`).toEqual(want);
        expect(got.fallbacks).toBe(0);
      }
    }
  });

  it("gives csv-parse's answer, records or error, for damaged shards", async () => {
    const rnd = lcg(5);
    let errors = 0;
    for (let i = 0; i < 600; i++) {
      const text = shard(rnd, true);
      const want = reference(text);
      if ('error' in want) errors++;
      for (const size of [0, 5]) expect((await fast(text, size)).result, `shard ${i}: ${JSON.stringify(text)}`).toEqual(want);
    }
    expect(errors).toBeGreaterThan(100); // the damage really produced csv-parse errors
  });

  it('fixed cases', async () => {
    const cases: [string, unknown][] = [
      ['a,b,c\n 1 , "2" ,3\n', { header: ['a', 'b', 'c'], records: [{ a: '1', b: '2', c: '3' }] }],
      ['a,b\r\n"x\r\ny","p""q"\r\n', { header: ['a', 'b'], records: [{ a: 'x\r\ny', b: 'p"q' }] }],
      ['\ufeffa,a\n1,2\n\n  \n3\n1,2,3', { header: ['a', 'a'], records: [{ a: '2' }, { a: '3' }, { a: '2' }] }],
      ['a,b\n"",""\n', { header: ['a', 'b'], records: [{ a: '', b: '' }] }],
    ];
    // Degenerate shards: nothing, blanks, a BOM alone, a quoted header name with a comma, a header without a newline.
    for (const text of ['', '\n\n', ' \t \n', '\ufeff', '"a,1",b\n1,2\n', 'a,b', 'a,b\n1', 'a\r\n\r\n1\r\n']) {
      expect((await fast(text, 1)).result, JSON.stringify(text)).toEqual(reference(text));
      expect((await fast(text, 1)).fallbacks).toBe(0);
    }
    for (const [text, want] of cases) {
      expect(reference(text)).toEqual(want);
      expect((await fast(text, 2)).result).toEqual(want);
    }
    expect((await fast('a,b\n1,b"c\n', 0)).fallbacks).toBe(1);
  });
});
