/**
 * Temporary files of killed writers (src/lib/abandoned-files.ts): removed when the pid in their name has ended,
 * kept while it runs, and never this process's own.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeAbandonedFiles } from '../../../src/lib/abandoned-files.ts';

describe('removeAbandonedFiles', () => {
  it('removes the files of ended writers only', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-abandoned-'));
    const ended = spawnSync(process.execPath, ['-e', '0']).pid!;
    const running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      const names = [
        `.r.match-v12.duckdb.${ended}.tmp`,
        `.r.match-v12.duckdb.${ended}.tmp.wal`,
        `.r.match-v12.duckdb.${running.pid}.tmp`,
        `.r.match-v12.duckdb.${process.pid}.tmp`,
        'r.match-v12.duckdb',
        `.r.duckdb.${ended}.other`,
      ];
      for (const n of names) fs.writeFileSync(path.join(dir, n), 'x');
      fs.mkdirSync(path.join(dir, `.r.match-v11.duckdb.${ended}.tmp.d`));
      const removed = removeAbandonedFiles(dir, /^\..*\.match-v\d+\.duckdb\.(\d+)\.tmp/);
      expect(removed.sort()).toEqual([
        `.r.match-v11.duckdb.${ended}.tmp.d`,
        `.r.match-v12.duckdb.${ended}.tmp`,
        `.r.match-v12.duckdb.${ended}.tmp.wal`,
      ]);
      expect(fs.readdirSync(dir).sort()).toEqual(
        [
          `.r.duckdb.${ended}.other`,
          `.r.match-v12.duckdb.${process.pid}.tmp`,
          `.r.match-v12.duckdb.${running.pid}.tmp`,
          'r.match-v12.duckdb',
        ].sort(),
      );
      expect(removeAbandonedFiles(path.join(dir, 'missing'), /(\d+)/)).toEqual([]);
    } finally {
      running.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
