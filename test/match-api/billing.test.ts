/**
 * Billing of POST /v1/match (ledger rows reserved then settled, unmatched rows free, rejected requests
 * charge nothing, a failed match releases), Idempotency-Key replay, scratch segments, and the lazily
 * built match index.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { WarehouseUnavailableError } from '../../src/graph/errors.ts';
import { createMatchIndexProvider } from '../../src/modules/matching/match-index.ts';
import { createMatchingService } from '../../src/modules/matching/service.ts';
import { createTestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { byNameEmail, NOBODY, pickPersons, setup, type MatchTest, type Row } from './setup.ts';

let m: MatchTest;
let people: Row[];

beforeAll(async () => {
  m = await setup();
  people = await pickPersons(m, 4);
}, 120_000);
afterAll(async () => m?.close());

describe('usage ledger', () => {
  it('reserves the ceiling, settles matched rows at the tier rate; unmatched rows are free', async () => {
    const org = await createTestOrg(m.t, { tier: 'paygo' });
    const token = await org.token();
    const res = await m.match({ records: [byNameEmail(people[0]!), byNameEmail(people[1]!), NOBODY] }, { token });
    expect(res.body.match_count).toBe(2);
    expect(res.body.amount_charged).toBe(0.1); // 2 x 5 cents (paygo)
    const rows = await m.t.services.billing.ledger(org.orgId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'match.microbatch', status: 'settled', quantity: 2, unit_price_cents: 5, amount_cents: 10 });
    expect(rows[0]!.request_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    m.clock.advance(1000);
    const none = await m.match({ records: [NOBODY] }, { token });
    expect(none.body.amount_charged).toBe(0);
    expect((await m.t.services.billing.ledger(org.orgId)).map((r) => r.amount_cents)).toEqual([10, 0]);
  });

  it('rejected requests reserve and charge nothing', async () => {
    const org = await createTestOrg(m.t);
    const token = await org.token();
    for (const body of [
      { records: [{ row_id: 'x', ...NOBODY }, { row_id: 'x' }] },
      { records: [{ row_id: '' }] },
      { records: Array.from({ length: 101 }, () => NOBODY) },
      { records: [NOBODY], field_list: ['nope'] },
    ])
      expect((await m.match(body, { token })).status).toBe(400);
    expect(await m.t.services.billing.ledger(org.orgId)).toEqual([]);
  });

  it('a failed match releases the reservation and maps warehouse unavailability', async () => {
    const org = await createTestOrg(m.t);
    const s = m.t.services;
    const service = createMatchingService({
      db: (await testStores()).database.db,
      clock: m.clock,
      warehouse: s.warehouse,
      billing: s.billing,
      segments: s.segmentsModule.api,
      catalog: s.catalog,
      organizations: s.organizations,
      personIdSecret: async () => 'secret',
      dataDir: m.dataDir,
      index: {
        current: async () => {
          throw new WarehouseUnavailableError('no_release');
        },
      },
    });
    await expect(service.match({ orgId: org.orgId, userId: org.ownerId }, { records: [NOBODY, NOBODY] })).rejects.toMatchObject({
      code: 'DATA_RELEASE_UNAVAILABLE',
    });
    const rows = await s.billing.ledger(org.orgId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'released', amount_cents: 0 });
  });
});

describe('prepaid balance', () => {
  it('answers 402 BILLING_INSUFFICIENT_BALANCE before matching when the credit cannot cover the ceiling; settled rows draw the credit', async () => {
    const org = await createTestOrg(m.t, { tier: 'paygo' });
    const { accounts } = m.t.services.billingModule;
    await accounts.setup(org.orgId, { mode: 'prepaid' });
    await accounts.grant(org.orgId, { kind: 'promotional_credit', amountCents: 10 });
    const token = await org.token();
    // Ceiling 3 records x 5 cents = 15 > 10: refused, nothing reserved.
    const refused = await m.match({ records: [byNameEmail(people[0]!), byNameEmail(people[1]!), NOBODY] }, { token });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ error: 'BILLING_INSUFFICIENT_BALANCE', amount_needed: 0.05, request_id: expect.any(String) });
    expect(await m.t.services.billing.ledger(org.orgId)).toEqual([]);
    // Ceiling 2 x 5 = 10 fits; both match and the credit is spent.
    const ok = await m.match({ records: [byNameEmail(people[0]!), byNameEmail(people[1]!)] }, { token });
    expect([ok.status, ok.body.amount_charged]).toEqual([200, 0.1]);
    expect((await m.t.services.billing.ledger(org.orgId))[0]).toMatchObject({ status: 'settled', amount_cents: 10, covered_cents: 10 });
    expect((await m.call('GET', '/v1/account/credits', undefined, { token })).body.balances[0].remaining_cents).toBe(0);
    expect((await m.match({ records: [NOBODY] }, { token })).status).toBe(402);
  });
});

describe('Idempotency-Key', () => {
  it('replays the original response within 24 h without a second charge; another body is 409', async () => {
    const org = await createTestOrg(m.t);
    const token = await org.token();
    const body = { records: [byNameEmail(people[2]!)], create_scratch_segment: true };
    const headers = { 'idempotency-key': 'match-key-1' };
    const first = await m.match(body, { token, headers });
    expect(first.status).toBe(200);
    m.clock.advance(23 * 3600_000);
    const again = await m.match(body, { token: await org.token(), headers });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const rows = await m.t.services.billing.ledger(org.orgId);
    expect(rows).toHaveLength(1);
    const conflict = await m.match({ ...body, match_level: ['I'] }, { token: await org.token(), headers });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('IDEMPOTENCY_KEY_CONFLICT');
    m.clock.advance(-23 * 3600_000);
  });
});

describe('scratch segment', () => {
  it('is a 24-hour matched segment of the matched persons, readable through GET /v1/segments/{id}', async () => {
    const [a, b] = people;
    const res = await m.match({
      records: [byNameEmail(a!), byNameEmail(b!), byNameEmail(a!, { row_id: 'dup' }), NOBODY],
      create_scratch_segment: true,
    });
    expect(res.status).toBe(200);
    const s = res.body.scratch_segment;
    expect(s).toMatchObject({ subtype: 'matched', record_count: 2, match_count: 3, input_record_count: 4, ephemeral: true });
    const seg = await m.call('GET', `/v1/segments/${s.segment_id}`);
    expect(seg.status).toBe(200);
    expect(seg.body).toMatchObject({ segment_id: s.segment_id, subtype: 'matched', status: 'active', record_count: 2, match_count: 3 });
    const expires = new Date(seg.body.expires_at).getTime();
    expect(seg.body.expires_at).toMatch(/T\d\d:00:00\.000Z$/);
    const now = m.clock.now().getTime();
    expect(expires).toBeGreaterThanOrEqual(now + 24 * 3600_000);
    expect(expires).toBeLessThanOrEqual(now + 25 * 3600_000);
    // Members: a Parquet of the distinct matched person keys under DATA_DIR/objects.
    const row = await (
      await testStores()
    ).database.db
      .selectFrom('segments')
      .select('members_path')
      .where('id', '=', s.segment_id)
      .executeTakeFirstOrThrow();
    expect(row.members_path!.startsWith(`${m.dataDir}/objects/`)).toBe(true);
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const keys = (await conn.runAndReadAll(`SELECT person_key FROM read_parquet('${row.members_path}') ORDER BY 1`))
      .getRowsJS()
      .map((r) => BigInt(r[0] as bigint));
    conn.closeSync();
    inst.closeSync();
    expect(keys).toEqual([BigInt(a!.person_key), BigInt(b!.person_key)].sort((x, y) => (x < y ? -1 : 1)));
    // Billed once, for the match only.
    expect(res.body.amount_charged).toBe(0.03);
  });

  it('is null when nothing matched or when not requested', async () => {
    const none = await m.match({ records: [NOBODY], create_scratch_segment: true });
    expect(none.body.scratch_segment).toBeNull();
    const notAsked = await m.match({ records: [byNameEmail(people[0]!)] });
    expect(notAsked.body.scratch_segment).toBeNull();
  });
});

describe('match index provider', () => {
  it('builds the index of a release once while concurrent requests wait', async () => {
    let builds = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const provider = createMatchIndexProvider({
      warehouse: { release: () => ({ major: 9, minor: 0, file: 'nonexistent-9.0.duckdb', as_of: '', persons: 1 }) },
      dataDir: `${m.dataDir}-none`,
      build: async (file) => {
        builds++;
        await gate;
        return `${file}.idx`;
      },
    });
    const calls = [provider.current(), provider.current(), provider.current()];
    release();
    const out = await Promise.all(calls);
    expect(builds).toBe(1);
    expect(new Set(out.map((o) => o.indexPath)).size).toBe(1);
    expect(fs.existsSync(out[0]!.indexPath)).toBe(false);
  });
});
