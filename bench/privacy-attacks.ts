/**
 * The attack classes of issue #32 at full size: a fresh 20,000-person graph, >= 16 targets, a budget of
 * requests per target (10,000 in the issue), each class scored against the most-common-value guess.
 * Runs at the service layer (the privacy layer's `measure` over the real warehouse), as the REST, MCP and
 * A2A counts do, without HTTP in the way. Prints JSON, one line per class.
 *   npx tsx bench/privacy-attacks.ts [--data-dir .bench/privacy-20k] [--targets 16] [--requests 10000] [--classes rephrasing,group_by] [--control]
 * --control also runs the wording-seeded layer of decision 015 (the positive control).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CATALOG_FIELDS } from '../src/graph/person-fields.ts';
import { generateGraph } from '../src/graph/generate.ts';
import { readCurrentRelease } from '../src/graph/releases.ts';
import { openWarehouse } from '../src/graph/warehouse.ts';
import { createPrivacyWithSecret } from '../src/modules/privacy/index.ts';
import { readPersons } from '../test/discovery/graph.ts';
import { ATTACKS, attackContext, findTargets, runAttack, setEnv, wordingEnv, type AttackClass } from '../test/helpers/privacy-attacks.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '.bench/privacy-20k' },
    targets: { type: 'string', default: '16' },
    requests: { type: 'string', default: '10000' },
    classes: { type: 'string' },
    control: { type: 'boolean', default: false },
    secret: { type: 'string', default: 'bench-privacy-noise' },
  },
});
const dataDir = path.resolve(values['data-dir']!);
if (!readCurrentRelease(dataDir))
  await generateGraph({ dataDir, persons: 20_000, seed: 29, releaseDate: '2026-02-01', threads: 1, memoryLimit: '1GB' });
const rows = await readPersons(dataDir);
const w = await openWarehouse({ dataDir, threads: 1, connections: 1, memoryLimit: '1GB' });
const run = (sql: string, params: unknown[]) => w.query(sql, params);
const privacy = createPrivacyWithSecret({ secret: values.secret!, floor: 50, lookupK: 10 });
const ctx = attackContext(rows);
const targets = findTargets(rows, Number(values.targets));
const requests = Number(values.requests);
const classes = (values.classes ? values.classes.split(',') : Object.keys(ATTACKS)) as AttackClass[];

/** Requests one sample of a class costs per target (see the attacks in test/helpers/privacy-attacks.ts). */
const perSample = (cls: AttackClass) => (cls === 'group_by' ? 2 : 2 * ctx.values.length);

const envs = {
  sets: setEnv(privacy, run, CATALOG_FIELDS),
  ...(values.control ? { wording: wordingEnv(privacy, run, CATALOG_FIELDS) } : {}),
};
console.log(
  JSON.stringify({
    persons: rows.length,
    targets: targets.length,
    values: ctx.values,
    requests_per_target: requests,
    date: new Date().toISOString(),
  }),
);
for (const [layer, env] of Object.entries(envs)) {
  for (const cls of classes) {
    if (layer === 'wording' && cls === 'group_by') continue;
    const samples = Math.max(1, Math.floor(requests / perSample(cls)));
    const t0 = performance.now();
    const r = await runAttack(env, ctx, targets, cls, samples);
    console.log(
      JSON.stringify({
        layer,
        ...r,
        samples,
        requests_per_target: samples * perSample(cls),
        verdict: r.success <= r.baselineShare + 0.1 ? 'no better than baseline + 10 points' : 'BEATS the baseline',
        seconds: Math.round((performance.now() - t0) / 1000),
      }),
    );
  }
}
await w.close();
