/**
 * POST /v1/match overlaps its control-plane work with the warehouse: the billing reservation runs while
 * the records are matched, and the charge is settled while the enrichment is read (service.ts). Neither
 * may change what a caller sees: a refused reservation (402) is the same error and leaves nothing behind
 * although the match ran beside it, and a failed enrichment read after the settle charges nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchWarehouse } from '../../src/identity/matcher/index.ts';
import { createMatchingService } from '../../src/modules/matching/service.ts';
import { createTestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { byNameEmail, NOBODY, pickPersons, setup, type MatchTest, type Row } from './setup.ts';

let m: MatchTest;
let people: Row[];

beforeAll(async () => {
  m = await setup();
  people = await pickPersons(m, 3);
}, 120_000);
afterAll(async () => m?.close());

const scratchDirs = (dataDir: string) => {
  const dir = path.join(dataDir, 'objects', 'segments');
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};

// The app's data dir is the graph dir other test files (other workers too) share, so its scratch folders can
// change under a test: the app is watched for the COPY that writes a scratch segment's members instead, and the
// services rebuilt here write theirs under a data dir of this file's own.
const ownDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-overlap-'));
afterAll(() => fs.rmSync(ownDataDir, { recursive: true, force: true }));

/** The scratch-member COPY statements the app's warehouse ran during `f` and `settleMs` after it. */
async function scratchWritesDuring(f: () => Promise<unknown>, settleMs = 200): Promise<string[]> {
  const w = m.t.services.warehouse as unknown as { query: (sql: string) => Promise<unknown> };
  const query = w.query;
  const copies: string[] = [];
  w.query = (sql: string) => {
    // The member set's COPY (its levels file beside it is written just before, decision 051).
    if (sql.startsWith('COPY') && sql.includes(path.join('objects', 'segments')) && sql.includes('members-v1')) copies.push(sql);
    return query.call(w, sql);
  };
  try {
    await f();
    await new Promise((r) => setTimeout(r, settleMs)); // a refused request's match may still be finishing
    return copies;
  } finally {
    w.query = query;
  }
}

/** The app's matching service rebuilt over a warehouse the test can watch or break (scratch files under ownDataDir). */
async function serviceOver(warehouse: MatchWarehouse, onIndex: () => void = () => {}) {
  const s = m.t.services;
  return createMatchingService({
    db: (await testStores()).database.db,
    clock: m.clock,
    warehouse,
    billing: s.billing,
    segments: s.segmentsModule.api,
    catalog: s.catalog,
    organizations: s.organizations,
    personIdSecret: async () => 'secret',
    dataDir: ownDataDir,
    index: {
      current: async () => {
        onIndex();
        return s.matchIndex.current();
      },
    },
  });
}

async function prepaidOrg(cents: number) {
  const org = await createTestOrg(m.t, { tier: 'paygo' });
  const { accounts } = m.t.services.billingModule;
  await accounts.setup(org.orgId, { mode: 'prepaid' });
  await accounts.grant(org.orgId, { kind: 'promotional_credit', amountCents: cents });
  return org;
}

const segmentsOf = async (orgId: string) =>
  (await testStores()).database.db.selectFrom('segments').select('id').where('org_id', '=', orgId).execute();

describe('reservation beside the match', () => {
  it('a refused reservation is the same 402 and leaves nothing behind, though the match ran beside it', async () => {
    const org = await prepaidOrg(10);
    const token = await org.token();
    const body = { records: [byNameEmail(people[0]!), byNameEmail(people[1]!), NOBODY], create_scratch_segment: true };
    let refused!: Awaited<ReturnType<typeof m.match>>;
    expect(
      await scratchWritesDuring(async () => {
        refused = await m.match(body, { token });
      }),
    ).toEqual([]);
    expect(refused.status).toBe(402);
    const { request_id: requestId, ...error } = refused.body;
    expect(requestId).toMatch(/^req_/);
    expect(error).toEqual({
      error: 'BILLING_INSUFFICIENT_BALANCE',
      code: 'BILLING_INSUFFICIENT_BALANCE',
      amount_needed: 0.05,
      required_amount: 0.15,
      available_balance: 0.1,
      message: 'The prepaid balance cannot cover this request: $0.15 is needed, $0.1 is available.',
      next_step:
        'Add credit (enable auto-recharge with PUT /v1/account/auto-recharge, or ask your account manager) and send the request again.',
    });
    expect(await m.t.services.billing.ledger(org.orgId)).toEqual([]);
    expect(await segmentsOf(org.orgId)).toEqual([]);
    expect((await m.call('GET', '/v1/account/credits', undefined, { token })).body.balances[0].remaining_cents).toBe(10);

    // The same through the service, watching the warehouse: the match did run (index resolved, keys
    // looked up) while the reservation was refused, and still nothing was written or charged.
    let indexCalls = 0;
    const statements: string[] = [];
    let enrichmentStarted!: () => void;
    const lastStep = new Promise<void>((resolve) => {
      enrichmentStarted = resolve;
    });
    const w = m.t.services.warehouse;
    const service = await serviceOver(
      {
        connections: w.connections,
        stream: w.stream.bind(w),
        streamRaw: w.streamRaw.bind(w),
        query: (sql: string) => {
          statements.push(sql);
          if (/\.m_attr WHERE/.test(sql)) enrichmentStarted();
          return w.query(sql);
        },
      },
      () => {
        indexCalls++;
      },
    );
    await expect(service.match({ orgId: org.orgId, userId: org.ownerId }, body)).rejects.toMatchObject({
      code: 'BILLING_INSUFFICIENT_BALANCE',
    });
    await lastStep; // the overlapped match got as far as its enrichment read
    await new Promise((r) => setTimeout(r, 50));
    expect(indexCalls).toBe(1);
    expect(statements.some((s) => s.includes('m_key'))).toBe(true);
    expect(statements.some((s) => s.startsWith('COPY'))).toBe(false); // no scratch members written
    expect(await m.t.services.billing.ledger(org.orgId)).toEqual([]);
    expect(await segmentsOf(org.orgId)).toEqual([]);
    expect(scratchDirs(ownDataDir)).toEqual([]);
  });
});

describe('settle beside the enrichment read', () => {
  it('a failed enrichment read rolls the settled charge back and releases the reservation', async () => {
    const org = await prepaidOrg(100);
    const token = await org.token();
    const w = m.t.services.warehouse;
    const failing: MatchWarehouse = {
      connections: w.connections,
      stream: w.stream.bind(w),
      streamRaw: w.streamRaw.bind(w),
      query: async (sql: string) => {
        if (/\.m_attr WHERE/.test(sql)) throw new Error('enrichment read failed');
        return w.query(sql);
      },
    };
    const service = await serviceOver(failing);
    const body = { records: [byNameEmail(people[0]!), byNameEmail(people[1]!)], create_scratch_segment: true };
    await expect(service.match({ orgId: org.orgId, userId: org.ownerId }, body)).rejects.toThrow();
    const rows = await m.t.services.billing.ledger(org.orgId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'match.microbatch', status: 'released', amount_cents: 0 });
    expect(await segmentsOf(org.orgId)).toEqual([]);
    expect(scratchDirs(ownDataDir)).toEqual([]);
    expect((await m.call('GET', '/v1/account/credits', undefined, { token })).body.balances[0].remaining_cents).toBe(100);

    // The same request through the app (enrichment readable) is charged as usual, its scratch members written once.
    let ok!: Awaited<ReturnType<typeof m.match>>;
    expect(
      await scratchWritesDuring(async () => {
        ok = await m.match(body, { token });
      }, 0),
    ).toHaveLength(1);
    expect([ok.status, ok.body.match_count, ok.body.amount_charged]).toEqual([200, 2, 0.1]);
    expect(ok.body.records[0]).toMatchObject({ match_level: 'I', enriched_state: people[0]!.state, zip5: people[0]!.zip5 });
    expect((await m.call('GET', '/v1/account/credits', undefined, { token })).body.balances[0].remaining_cents).toBe(90);
  });
});
