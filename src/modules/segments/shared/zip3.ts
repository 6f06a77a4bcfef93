/**
 * ZIP3 regions of states, cities and ZIP5s, from the public ZIP reference (reference/zips.csv), which
 * is also where the graph's addresses come from. Read once, lazily; ~34k lines.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Zip3Resolver } from '../../../graph/index.ts';

const ZIPS_CSV = path.resolve(import.meta.dirname, '../../../../reference/zips.csv');
const WS = ' \t\n\v\f\r';

interface ZipIndex {
  byState: Map<string, Set<string>>;
  byCity: Map<string, Set<string>>;
}

let index: ZipIndex | null = null;

function load(file: string): ZipIndex {
  const byState = new Map<string, Set<string>>();
  const byCity = new Map<string, Set<string>>();
  const add = (m: Map<string, Set<string>>, k: string, z3: string) => {
    let s = m.get(k);
    if (!s) m.set(k, (s = new Set()));
    s.add(z3);
  };
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (const line of lines.slice(1)) {
    const [zip5, city, state] = line.split(',');
    if (!zip5 || zip5.length !== 5) continue;
    const z3 = zip5.slice(0, 3);
    if (state) add(byState, state, z3);
    if (city) add(byCity, city, z3);
  }
  return { byState, byCity };
}

function trim(v: string): string {
  let a = 0;
  let b = v.length;
  while (a < b && WS.includes(v[a]!)) a++;
  while (b > a && WS.includes(v[b - 1]!)) b--;
  return v.slice(a, b);
}

/** A resolver honouring the condition's comparison options (case folding, whitespace trimming). */
export function referenceZip3Resolver(file = ZIPS_CSV): Zip3Resolver {
  return async (field, values, opts) => {
    index ??= load(file);
    const out = new Set<string>();
    const norm = (v: string) => {
      const t = opts.trim_whitespace ? trim(v) : v;
      return opts.case_insensitive ? t.toLowerCase() : t;
    };
    if (field === 'zip5') {
      for (const v of values) {
        const z = opts.trim_whitespace ? trim(v) : v;
        if (/^\d{5}$/.test(z)) out.add(z.slice(0, 3));
      }
      return out;
    }
    const map = field === 'state' ? index.byState : index.byCity;
    const wanted = new Set(values.map(norm));
    for (const [key, zips] of map) {
      if (wanted.has(opts.case_insensitive ? key.toLowerCase() : key)) for (const z of zips) out.add(z);
    }
    return out;
  };
}
