/**
 * MCP `match_records` answers as POST /v1/match does (issue #31 point 2; decision 051): a made-up name at a real
 * address or an email alone matches below I with no identity field and no exact age, and the id it issues,
 * sent alone, neither answers at I nor returns the resident's name, birth date or address.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg } from '../helpers/app.ts';
import type { OAuthServer } from '../oauth/setup.ts';
import { testGraph } from '../segments/graph.ts';
import { agentServer } from './setup.ts';

type Row = Record<string, any>;
let server: OAuthServer;
let client: Client;
let person: Row;

const title = (s: string) => s.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase());

beforeAll(async () => {
  server = await agentServer();
  const org = await createTestOrg(server);
  client = new Client({ name: 'disclosure-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.resources.mcp), {
      requestInit: { headers: { authorization: `Bearer ${await org.token(['discovery', 'creator'])}` } },
    }),
  );
  const g = await testGraph();
  person = (
    await g.conn
      .runAndReadAll(`SELECT p.person_key, p.first_name, p.last_name, p.address_1, p.city, p.state, p.zip5, strftime(p.dob, '%Y-%m-%d') AS dobs,
      (SELECT min(email) FROM graph.emails e WHERE e.person_key = p.person_key) AS email
    FROM graph.persons p WHERE p.age >= 25 AND p.address_2 IS NULL AND EXISTS (SELECT 1 FROM graph.emails e WHERE e.person_key = p.person_key)
    ORDER BY p.person_key LIMIT 1`)
  ).getRowObjectsJS()[0] as Row;
}, 240_000);
afterAll(async () => client?.close().catch(() => {}));

const match = async (args: Row) => {
  const res = await client.callTool({ name: 'match_records', arguments: { ...args, confirm: true } });
  expect(res.isError ?? false, JSON.stringify(res.structuredContent)).toBe(false);
  return (res.structuredContent as { records: Row[] }).records;
};
const IDENTITY = ['enriched_first_name', 'middle_name', 'enriched_last_name', 'enriched_dob', 'enriched_address_1', 'enriched_address_2'];

describe('MCP match_records: no reverse lookup (decision 051)', () => {
  it('a made-up name at a real address and an email alone answer below I without identity or exact age; their ids refresh nothing', async () => {
    const stranger = {
      row_id: 'a',
      first_name: 'Zebulon',
      last_name: 'Quxworthy',
      address_1: title(person.address_1),
      city: title(person.city),
      state: person.state,
      zip: person.zip5,
    };
    const [a, d] = await match({ records: [stranger, { row_id: 'd', email: person.email }], template_id: 'standard_iag' });
    expect(['A', 'S', 'H']).toContain(a!.match_level);
    expect(d!.match_level).toBe('D');
    for (const r of [a!, d!]) for (const k of IDENTITY) expect(r[k] ?? null).toBeNull();
    const [ea, ed] = await match({ records: [stranger, { row_id: 'd', email: person.email }], field_list: ['age', 'household_income'] });
    for (const r of [ea!, ed!]) for (const k of ['age', 'household_income']) expect(r[k] ?? null).toBeNull();
    for (const id of [a!.iag_person_id, d!.iag_person_id]) {
      const [r] = await match({ records: [{ iag_person_id: id }], template_id: 'standard_iag' });
      expect(r!.match_level).not.toBe('I');
      for (const k of IDENTITY) expect(r![k] ?? null).toBeNull();
      expect(Object.values(r!)).not.toContain(person.last_name);
      expect(Object.values(r!)).not.toContain(person.dobs);
    }
  });
});
