import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { testStores } from '../helpers/stores.ts';

/** pg-boss on the control-plane database: a job sent inside a transaction lives and dies with it. */
describe('job queue', () => {
  const name = `test-outbox-${Date.now()}`;
  const seen: string[] = [];
  let workerId: string;

  beforeAll(async () => {
    const { queue } = await testStores();
    await queue.ensureQueue(name);
    workerId = await queue.work<{ tag: string }>(name, { pollingIntervalSeconds: 0.5 }, async (jobs) => {
      for (const job of jobs) seen.push(job.data.tag);
    });
  });
  afterAll(async () => {
    const { queue } = await testStores();
    await queue.boss.offWork(name, { id: workerId });
  });

  const waitFor = async (predicate: () => boolean, ms = 8000) => {
    const until = Date.now() + ms;
    while (!predicate() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  };

  it('runs a job sent in a committed transaction', async () => {
    const { database, queue } = await testStores();
    await database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await queue.send(name, { tag: 'committed' }, {}, trx);
    });
    await waitFor(() => seen.includes('committed'));
    expect(seen).toContain('committed');
  });

  it('never runs a job sent in a transaction that rolls back', async () => {
    const { database, queue } = await testStores();
    await expect(
      database.db.transaction().execute(async (trx) => {
        await queue.send(name, { tag: 'rolled-back' }, {}, trx);
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    await queue.send(name, { tag: 'after' });
    await waitFor(() => seen.includes('after'));
    expect(seen).toContain('after');
    expect(seen).not.toContain('rolled-back');
    const stored = await queue.boss.findJobs(name);
    expect(stored.map((j: { data: any }) => j.data.tag)).not.toContain('rolled-back');
  });

  it('wake starts a sent job now instead of at the next poll', async () => {
    const { queue } = await testStores();
    const slow = `test-wake-${Date.now()}`;
    // notify: false, so PostgreSQL's LISTEN/NOTIFY does not wake the worker either: only its 20 s poll or wake().
    await queue.boss.createQueue(slow, { notify: false });
    const handled: string[] = [];
    const id = await queue.work<{ tag: string }>(slow, { pollingIntervalSeconds: 20 }, async (jobs) => {
      for (const job of jobs) handled.push(job.data.tag);
    });
    try {
      await queue.send(slow, { tag: 'first' });
      queue.wake(slow);
      await waitFor(() => handled.includes('first'));
      await new Promise((r) => setTimeout(r, 1000)); // the worker is asleep until its next poll, 20 s away
      await queue.send(slow, { tag: 'woken' });
      const sent = Date.now();
      queue.wake(slow);
      await waitFor(() => handled.includes('woken'), 6000);
      expect(handled).toEqual(['first', 'woken']);
      expect(Date.now() - sent).toBeLessThan(6000);
      queue.wake('no-such-queue'); // no worker of it here: nothing happens
    } finally {
      await queue.boss.offWork(slow, { id });
    }
  });

  it('does not let other statements leak into an open transaction (PGlite lock)', async () => {
    const { database } = await testStores();
    await sql`create table if not exists tx_probe (v text)`.execute(database.db);
    let outside: Promise<unknown> | null = null;
    await expect(
      database.db.transaction().execute(async (trx) => {
        await sql`insert into tx_probe values ('inside')`.execute(trx);
        outside = sql`insert into tx_probe values ('outside')`.execute(database.db);
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('roll back');
      }),
    ).rejects.toThrow();
    await outside;
    const rows = await sql<{ v: string }>`select v from tx_probe`.execute(database.db);
    expect(rows.rows.map((r) => r.v)).toContain('outside');
    expect(rows.rows.map((r) => r.v)).not.toContain('inside');
  });
});
