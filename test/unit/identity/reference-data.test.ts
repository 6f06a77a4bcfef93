import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadFirstNames,
  loadNicknames,
  loadStreetSuffixes,
  loadSurnames,
  loadUnitDesignators,
  loadZips,
} from '../../../src/identity/reference-data.ts';
import { areNicknameEquivalent } from '../../../src/identity/normalize/nickname.ts';

describe('reference data loaders', () => {
  it('loads the bundled files', () => {
    expect(loadNicknames().formalsOf.get('peggy')).toContain('margaret');
    expect(loadStreetSuffixes().get('AV')).toBe('AVE');
    expect(loadStreetSuffixes().get('AVENUE')).toBe('AVE');
    expect(loadUnitDesignators().get('SUITE')).toEqual({ abbreviation: 'STE', requiresRange: true });
    expect(loadUnitDesignators().get('#')?.abbreviation).toBe('#');
    expect(loadZips().get('02134')).toEqual({ city: 'ALLSTON', state: 'MA' });
    expect(loadSurnames().get('SMITH')).toBe(1);
    expect(loadFirstNames().get('MARY')).toBeGreaterThan(1_000_000);
  });

  it('caches per folder', () => {
    expect(loadZips()).toBe(loadZips());
  });

  it('reads an override folder (CRLF or LF)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ref-'));
    writeFileSync(join(dir, 'nicknames.csv'), 'name1,relationship,name2\r\nzed,has_nickname,zz\r\n');
    expect(areNicknameEquivalent('ZZ', 'Zed', dir)).toBe(true);
    expect(areNicknameEquivalent('Bob', 'Robert', dir)).toBe(false);
    expect(loadNicknames(new URL(`file://${dir}/`)).nicknamesOf.get('zed')).toContain('zz');
  });
});
