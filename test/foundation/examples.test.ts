import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation, OperationExample } from '../../src/core/operation.ts';
import { ErrorEnvelopeSchema } from '../../src/http/schemas.ts';
import { fastifyPath } from '../../src/http/rest.ts';
import { bearer, testApp, type TestApp } from '../helpers/app.ts';
import { seedExamples, type ExampleFixture } from '../helpers/examples-fixture.ts';
import { testGraph } from '../segments/graph.ts';
import { startJobs } from '../../src/jobs/worker.ts';
import { testStores } from '../helpers/stores.ts';
import { hubspotSettings, startHubSpot, type HubSpotStandIn } from '../helpers/hubspot-server.ts';

const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
ajv.addSchema(ErrorEnvelopeSchema, 'ErrorEnvelope');

/** Reads first, then writes in declaration order, deletions last (a deletion must not starve a later example). */
const ORDER: Record<string, number> = { GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 };

function urlOf(op: Operation, example: OperationExample): string {
  let path = fastifyPath(op.path);
  for (const [k, v] of Object.entries(example.request.params ?? {})) path = path.replace(`:${k}`, encodeURIComponent(v));
  const q = new URLSearchParams(Object.fromEntries(Object.entries(example.request.query ?? {}).map(([k, v]) => [k, String(v)]))).toString();
  return q ? `${path}?${q}` : path;
}

/** Every declared operation's worked examples, sent as written (spec-level documentation that works). */
describe('operation examples', () => {
  let t: TestApp;
  let fx: ExampleFixture;
  let hubspot: HubSpotStandIn;
  beforeAll(async () => {
    const g = await testGraph();
    hubspot = await startHubSpot();
    t = await testApp({ config: { dataDir: g.dataDir, integrations: hubspotSettings(hubspot) } });
    // As `ads serve` does: every queue exists (events of the example organization are enqueued), no worker runs.
    await startJobs((await testStores()).queue, t.services.jobDefinitions(), { work: false });
    fx = await seedExamples(t, { hubspot });
  }, 120_000);
  afterAll(async () => {
    await t.app.close();
    await hubspot?.close();
  });

  it('every operation has an operationId, a description and at least one example', () => {
    for (const op of t.services.operations) {
      expect(op.id, `${op.method} ${op.path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(op.description.length, op.id).toBeGreaterThan(20);
      expect(op.examples.length, op.id).toBeGreaterThan(0);
    }
    expect(new Set(t.services.operations.map((op) => op.id)).size).toBe(t.services.operations.length);
  });

  it('the server answers every example as its declaration says, in the declared schema', async () => {
    const ops = [...t.services.operations].sort((a, b) => ORDER[a.method]! - ORDER[b.method]!);
    const failures: string[] = [];
    for (const op of ops) {
      for (const example of op.examples) {
        const raw = typeof example.request.body === 'string';
        const res = await t.app.inject({
          method: op.method,
          url: urlOf(op, example),
          headers: {
            ...(op.access === 'public' ? {} : bearer(fx.token)),
            ...(raw ? { 'content-type': 'text/csv' } : {}),
            ...(example.request.headers ?? {}),
          },
          ...(example.request.body === undefined
            ? {}
            : { payload: raw ? (example.request.body as string) : (example.request.body as object) }),
        });
        const where = `${op.id}/${example.name}`;
        if (res.statusCode !== example.response.status) {
          failures.push(`${where}: ${res.statusCode} (expected ${example.response.status}) ${res.body.slice(0, 300)}`);
          continue;
        }
        if (res.statusCode === 204) continue;
        const schema = res.statusCode < 300 ? op.responses[res.statusCode] : ErrorEnvelopeSchema;
        const validate = ajv.compile(schema as object);
        if (!validate(res.json())) failures.push(`${where}: body outside its schema: ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('puts the examples into the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const create = doc.paths['/v1/segments'].post;
    expect(create.operationId).toBe('createSegment');
    expect(create.requestBody.content['application/json'].examples.filter.value).toMatchObject({ name: 'CA homeowners 30-45' });
    expect(create['x-examples'][0].response.status).toBe(201);
  });
});
