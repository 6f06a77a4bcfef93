import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The `ads` command as operators run it (bin/ads.mjs: Node 24's own TypeScript, no loader).
const BIN = join(process.cwd(), 'bin/ads.mjs');

/** `ads billing` as operators run it, on the same store as the test run (PGlite, or DATABASE_URL). */
describe('ads billing (CLI)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ads-billing-cli-'));
  const env = { ...process.env, DATA_DIR: dataDir, GRAPH_PERSONS: '0' };
  const exec = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, ...args], { env }, (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      );
    });
  const ads = async (...args: string[]) => {
    const r = await exec(...args);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };

  it('sets up a prepaid organization, grants credits, shows the balance, lists the ledger and reconciles', async () => {
    const org = await ads('org', 'create', 'Ledger Corp', '--tier', 'growth');
    const setup = await ads('billing', 'setup', '--org', org.org_id, '--mode', 'prepaid', '--cadence', 'annual');
    expect(setup).toMatchObject({ org_id: org.org_id, mode: 'prepaid', cadence: 'annual', parent_org_id: null });

    const paid = await ads('billing', 'grant', '--org', org.org_id, '--kind', 'paid_commit', '--amount', '125.50');
    expect(paid).toMatchObject({ kind: 'paid_commit', amount_cents: 12550, remaining_cents: 12550 });
    await ads(
      'billing',
      'grant',
      '--org',
      org.org_id,
      '--kind',
      'promotional_credit',
      '--amount',
      '10',
      '--priority',
      '1',
      '--name',
      'Welcome',
    );

    const shown = await ads('billing', 'show', '--org', org.org_id);
    expect(shown).toMatchObject({ org_id: org.org_id, billing_mode: 'prepaid', parent_org_id: null, balance: 135.5 });
    expect(shown.contract).toMatchObject({ billing_mode: 'prepaid', parent_billed: false, terms: { tier: 'growth', cadence: 'annual' } });
    expect(shown.credits).toHaveLength(2);

    expect(await ads('billing', 'ledger', '--org', org.org_id)).toEqual([]);
    expect(await ads('billing', 'reconcile', '--org', org.org_id)).toMatchObject({
      org_id: org.org_id,
      granted_cents: 13550,
      remaining_cents: 13550,
      drawn_cents: 0,
      charged_cents: 0,
      problems: [],
    });
  }, 600_000);

  it('a child billed through a parent shows no pooled balance; bad input exits 2 and changes nothing', async () => {
    const parent = await ads('org', 'create', 'Agency Corp');
    const child = await ads('org', 'create', 'Client Corp');
    expect(await ads('billing', 'setup', '--org', child.org_id, '--parent', parent.org_id)).toMatchObject({ parent_org_id: parent.org_id });
    expect((await ads('billing', 'show', '--org', child.org_id)).credits).toBe('billed through the parent organization');

    const badKind = await exec('billing', 'grant', '--org', parent.org_id, '--kind', 'gift', '--amount', '5');
    expect(badKind.code).toBe(2);
    expect(badKind.stderr).toContain('--kind must be paid_commit or promotional_credit');
    const badAmount = await exec('billing', 'grant', '--org', parent.org_id, '--kind', 'paid_commit', '--amount', '0');
    expect(badAmount.code).toBe(2);
    expect(badAmount.stderr).toContain('--amount must be a positive number of US dollars');
    const noOrg = await exec('billing', 'show');
    expect(noOrg.code).toBe(2);
    expect(noOrg.stderr).toContain('--org <org_id>');
    expect((await ads('billing', 'show', '--org', parent.org_id)).balance).toBe(0);

    // Development: the parent's billing boundary is advanced now; a new period starts (no change was scheduled).
    const before = (await ads('billing', 'show', '--org', parent.org_id)).contract.current_period_start;
    expect(await ads('billing', 'advance', '--org', parent.org_id)).toEqual({ applied_changes: [] });
    const after = (await ads('billing', 'show', '--org', parent.org_id)).contract.current_period_start;
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
  }, 600_000);
});
