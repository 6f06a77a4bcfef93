import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sqlLiterals } from '../helpers/sql-text.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The house rules of docs/architecture.md, checked on every test run (.dependency-cruiser.cjs). */
describe('module structure', () => {
  it("has no cycle between areas, no base-layer import of modules/ or http/, and no import of another area's private files", async () => {
    const bin = join(root, 'node_modules', '.bin', 'depcruise');
    const result = await run(bin, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
      cwd: root,
      maxBuffer: 50e6,
    }).catch((error: { stdout: string }) => error);
    const report = JSON.parse(result.stdout) as {
      summary: { violations: { rule: { name: string }; from: string; to: string }[]; totalCruised: number };
    };
    expect(report.summary.totalCruised).toBeGreaterThan(100);
    expect(report.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  }, 60_000);

  it('gives every folder of src a name of its own (issue #33: one name, one room)', () => {
    const folders = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const p = join(dir, name);
        return statSync(p).isDirectory() ? [p, ...folders(p)] : [];
      });
    const byName = new Map<string, string[]>();
    for (const f of folders(join(root, 'src'))) {
      const name = f.split('/').pop()!;
      byName.set(name, [...(byName.get(name) ?? []), f.slice(root.length + 1)]);
    }
    expect([...byName.values()].filter((paths) => paths.length > 1)).toEqual([]);
  });

  it('keeps every source file under about 400 lines', () => {
    const long = files(join(root, 'src'))
      .map((f) => ({ f: f.slice(root.length + 1), lines: readFileSync(f, 'utf8').split('\n').length }))
      .filter((x) => x.lines > 400);
    expect(long).toEqual([]);
  });

  it('keeps the SQL text of the graph behind the warehouse door (src/graph): modules and every base area hold none', () => {
    // Still to move behind the door (issue #33): the engines that run on the warehouse. Each file taken
    // off this list must be free of warehouse SQL; a new file with SQL outside src/graph fails.
    const engines = [
      'src/export-engine/bases.ts',
      'src/export-engine/batches.ts',
      'src/export-engine/rendered/build.ts',
      ...['attr-pack', 'candidates', 'enrichment', 'hardened-set', 'index-sidecar', 'labelled-set', 'matcher', 'point', 'refit']
        .concat(['resident-persons', 'stage', 'warm'])
        .map((f) => `src/identity/matcher/${f}.ts`),
      ...['data/labels', 'data/sample', 'metrics/holdout', 'score'].map((f) => `src/modelling/${f}.ts`),
    ];
    const withSql = files(join(root, 'src'))
      .map((f) => f.slice(root.length + 1))
      .filter((f) => !f.startsWith('src/graph/') && sqlLiterals(readFileSync(join(root, f), 'utf8')).length > 0);
    expect(withSql.filter((f) => f.startsWith('src/modules/'))).toEqual([]);
    expect(withSql.sort()).toEqual(engines.sort());
  });

  it('finds SQL text in string and template literals, not in comments nor in control-plane `sql` templates', () => {
    const source = [
      '// SELECT in a comment',
      '/* COPY (x) TO y */',
      "const a = 'SELECT 1';",
      'const b = `COPY (${inner}) TO ${lit(f)} (FORMAT parquet)`;',
      'const c = await sql<{ n: number }>`SELECT count(*) FROM identity_licenses`.execute(db);',
      "const d = 'selected fields';",
      'const e = `SELECT ${cols.join(`, `)} FROM t GROUP BY 1`;',
    ].join('\n');
    expect(sqlLiterals(source)).toEqual([
      'SELECT 1',
      'COPY (${inner}) TO ${lit(f)} (FORMAT parquet)',
      'SELECT ${cols.join(`, `)} FROM t GROUP BY 1',
    ]);
  });

  it('catches a violation (the rule set is live, not vacuous)', async () => {
    const bin = join(root, 'node_modules', '.bin', 'depcruise');
    // A fixture tree that imports an area's private file from the base layer.
    const result = await run(bin, ['src', '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json'], {
      cwd: join(root, 'test/fixtures/bad-structure'),
      maxBuffer: 50e6,
    }).catch((error: { stdout: string }) => error);
    const names = (JSON.parse(result.stdout) as { summary: { violations: { rule: { name: string } }[] } }).summary.violations.map(
      (v) => v.rule.name,
    );
    expect(names).toEqual(expect.arrayContaining(['base-layer-imports-modules-or-http', 'module-imports-another-modules-private-file']));
  }, 60_000);
});
