import { describe, expect, it } from 'vitest';
import { splitLookup } from '../../../src/identity/matcher/index.ts';

describe('splitLookup', () => {
  const run = async (n: number, ways: number) => {
    const statements: number[][] = [];
    let running = 0;
    let maxRunning = 0;
    const query = async (sql: string) => {
      const part = JSON.parse(sql) as number[];
      statements.push(part);
      maxRunning = Math.max(maxRunning, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return part.map((v) => ({ v }));
    };
    const values = Array.from({ length: n }, (_, i) => i);
    const rows = await splitLookup(query, values, ways, (part) => JSON.stringify(part));
    return { statements, maxRunning, rows: rows.map((r) => r.v) };
  };

  it('splits a long list into `ways` statements run at once, every value once, rows concatenated', async () => {
    const r = await run(300, 2);
    expect(r.statements).toHaveLength(2);
    expect(r.maxRunning).toBe(2);
    expect(r.rows).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it('keeps one statement for short lists or one way', async () => {
    expect((await run(50, 2)).statements).toHaveLength(1);
    expect((await run(300, 1)).statements).toHaveLength(1);
    expect((await run(0, 2)).statements).toEqual([[]]);
  });
});
