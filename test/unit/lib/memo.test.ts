/**
 * boundedMemo (src/lib/memo.ts): off until a thread enables it (names are personal data); then each value computed
 * once, null results remembered, the memo cleared at its bound.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { boundedMemo, enableMemos } from '../../../src/lib/memo.ts';

// Test files share a process (isolate: false): leave memos off, as every thread but a staging worker has them.
afterAll(() => enableMemos(false));

describe('boundedMemo', () => {
  it('keeps nothing until memos are enabled for the thread', () => {
    enableMemos(false);
    const calls: string[] = [];
    const id = boundedMemo((s: string) => {
      calls.push(s);
      return s;
    });
    id('a');
    id('a');
    expect(calls).toEqual(['a', 'a']);
    enableMemos();
    id('a');
    id('a');
    expect(calls).toEqual(['a', 'a', 'a']);
  });

  it('computes a value once per argument, null results included', () => {
    const calls: string[] = [];
    const upper = boundedMemo((s: string) => {
      calls.push(s);
      return s === 'x' ? null : s.toUpperCase();
    });
    expect([upper('a'), upper('b'), upper('a'), upper('x'), upper('x')]).toEqual(['A', 'B', 'A', null, null]);
    expect(calls).toEqual(['a', 'b', 'x']);
  });

  it('starts afresh when it holds `max` values, so its memory stays bounded', () => {
    const calls: string[] = [];
    const id = boundedMemo((s: string) => {
      calls.push(s);
      return s;
    }, 2);
    for (const s of ['a', 'b', 'a', 'c', 'a', 'b']) id(s);
    // a, b computed; c finds the memo full and starts a new one with c; a computed again (memo {c, a}); b finds it full
    expect(calls).toEqual(['a', 'b', 'c', 'a', 'b']);
  });
});
