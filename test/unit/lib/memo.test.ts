/** boundedMemo (src/lib/memo.ts): each value computed once, null results remembered, the memo cleared at its bound. */
import { describe, expect, it } from 'vitest';
import { boundedMemo } from '../../../src/lib/memo.ts';

describe('boundedMemo', () => {
  it('computes a value once per argument, null results included', () => {
    const calls: string[] = [];
    const upper = boundedMemo((s: string) => { calls.push(s); return s === 'x' ? null : s.toUpperCase(); });
    expect([upper('a'), upper('b'), upper('a'), upper('x'), upper('x')]).toEqual(['A', 'B', 'A', null, null]);
    expect(calls).toEqual(['a', 'b', 'x']);
  });

  it('starts afresh when it holds `max` values, so its memory stays bounded', () => {
    const calls: string[] = [];
    const id = boundedMemo((s: string) => { calls.push(s); return s; }, 2);
    for (const s of ['a', 'b', 'a', 'c', 'a', 'b']) id(s);
    // a, b computed; c finds the memo full and starts a new one with c; a computed again (memo {c, a}); b finds it full
    expect(calls).toEqual(['a', 'b', 'c', 'a', 'b']);
  });
});
