/**
 * The CSV reader's fast path. csv-parse costs about 4.4 us a row, most of a file's read on the main thread; this
 * parser gives the same records for well-formed shards at about a quarter of that, under read.ts's options: a
 * leading BOM dropped; fields separated by commas; quoted fields ("" an escaped quote, newlines kept); unquoted
 * fields and the space around quoted ones trimmed of Unicode white space (csv-parse's trimable characters are what
 * JavaScript's trim() removes); records ended by the first line ending seen (\n or \r\n) throughout; lines of
 * nothing but white space skipped; the first record the header; a short record without its missing columns, a long
 * one without its extra fields; a repeated column's last value kept.
 *
 * Anything else (a quote inside an unquoted field, text after a closing quote, a quote never closed, a lone \r, a
 * line ending other than the first) is not guessed at: the shard is read again by csv-parse from the start, the
 * records already given skipped, so its answer or its error is csv-parse's own. test/unit/file-match/csv-fast.test.ts
 * compares the two on generated shards.
 */
import { StringDecoder } from 'node:string_decoder';

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;
const MAX_PENDING = 8 << 20;

/** White space csv-parse trims around a field, line endings excepted (they end the record). */
const isBlank = (c: number) =>
  c === 0x20 ||
  c === 0x09 ||
  c === 0x0b ||
  c === 0x0c ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;

/** Thrown inside the parser when the shard needs csv-parse. */
class NotPlain extends Error {}

type Ending = 'lf' | 'crlf' | null;

/**
 * Parses whole records from `text` starting at 0. Returns the records and where the first incomplete one starts
 * (text.length when all are complete). At `eof` the last record needs no line ending.
 */
function parseRecords(
  text: string,
  eof: boolean,
  state: { ending: Ending },
): { records: { fields: string[]; blank: boolean }[]; rest: number } {
  const records: { fields: string[]; blank: boolean }[] = [];
  const n = text.length;
  let at = 0;
  for (;;) {
    const start = at;
    if (at >= n) return { records, rest: n };
    const fields: string[] = [];
    let quotedAny = false;
    let p = at;
    let complete = false;
    for (;;) {
      // One field from p.
      let q = p;
      while (q < n && isBlank(text.charCodeAt(q))) q++;
      let value: string;
      let c: number;
      if (q < n && text.charCodeAt(q) === QUOTE) {
        quotedAny = true;
        let parts = '';
        let from = q + 1;
        for (;;) {
          const close = text.indexOf('"', from);
          if (close < 0 || close + 1 >= n) {
            if (eof && close >= 0) {
              parts += text.slice(from, close);
              p = close + 1;
              break;
            }
            if (eof) throw new NotPlain('quote not closed');
            return { records, rest: start };
          }
          if (text.charCodeAt(close + 1) === QUOTE) {
            parts += text.slice(from, close + 1);
            from = close + 2;
            continue;
          }
          parts += text.slice(from, close);
          p = close + 1;
          break;
        }
        while (p < n && isBlank(text.charCodeAt(p))) p++;
        c = p < n ? text.charCodeAt(p) : -1;
        if (c !== -1 && c !== COMMA && c !== LF && c !== CR) throw new NotPlain('text after a closing quote');
        value = parts;
      } else {
        p = q;
        while (p < n) {
          c = text.charCodeAt(p);
          if (c === COMMA || c === LF || c === CR) break;
          if (c === QUOTE) throw new NotPlain('quote inside a field');
          p++;
        }
        c = p < n ? text.charCodeAt(p) : -1;
        value = text.slice(q, p).trim();
      }
      fields.push(value);
      if (c === COMMA) {
        p++;
        continue;
      }
      if (c === -1) {
        if (!eof) return { records, rest: start };
        at = n;
        complete = true;
        break;
      }
      // A line ending: the first one seen decides the shard's; any other makes it a csv-parse shard.
      let ending: Ending = 'lf';
      if (c === CR) {
        if (p + 1 >= n && !eof) return { records, rest: start };
        if (text.charCodeAt(p + 1) !== LF) throw new NotPlain('lone carriage return');
        ending = 'crlf';
      }
      if (state.ending === null) state.ending = ending;
      else if (state.ending !== ending) throw new NotPlain('mixed line endings');
      at = p + (ending === 'crlf' ? 2 : 1);
      complete = true;
      break;
    }
    if (complete) records.push({ fields, blank: !quotedAny && fields.length === 1 && fields[0] === '' });
  }
}

/**
 * Records of a CSV shard (the bytes `source()` streams) as csv-parse with `columns` gives them (see above);
 * `onHeader` gets the header. `fallback(skip)` reads the shard with csv-parse, skipping its first `skip` records.
 * A record longer than `maxRecord` characters is left to the fallback too, whose csv-parse refuses it.
 */
export async function* fastCsvRows(
  source: () => AsyncIterable<Buffer>,
  onHeader: (header: string[]) => void,
  fallback: (skip: number) => AsyncGenerator<Record<string, unknown>>,
  maxRecord = MAX_PENDING,
): AsyncGenerator<Record<string, unknown>> {
  const maxPending = Math.min(MAX_PENDING, maxRecord);
  let columns: string[] | null = null;
  let given = 0;
  const state: { ending: Ending } = { ending: null };
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let first = true;
  const toRecord = (fields: string[]) => {
    const record: Record<string, unknown> = {};
    const cols = columns!;
    const n = Math.min(fields.length, cols.length);
    for (let i = 0; i < n; i++) record[cols[i]!] = fields[i];
    return record;
  };
  const take = function* (text: string, eof: boolean): Generator<Record<string, unknown>> {
    const { records, rest } = parseRecords(text, eof, state);
    pending = text.slice(rest);
    for (const r of records) {
      if (r.blank) continue;
      if (columns === null) {
        columns = r.fields.map((f) => f.trim());
        onHeader(columns);
        continue;
      }
      given++;
      yield toRecord(r.fields);
    }
  };
  try {
    for await (const chunk of source()) {
      // A record longer than this is left to csv-parse rather than parsed again with every chunk.
      if (pending.length > maxPending) throw new NotPlain('record too long');
      let text = pending + decoder.write(chunk);
      if (first && text.length > 0) {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      yield* take(text, false);
    }
    let text = pending + decoder.end();
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    yield* take(text, true);
  } catch (error) {
    if (!(error instanceof NotPlain)) throw error;
    yield* fallback(given);
  }
}
