import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

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
