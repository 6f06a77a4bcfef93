/**
 * Refits the Fellegi-Sunter parameters of the bench graph (.bench/match-data, or --data-dir) and writes
 * them beside its release (params.ts); prints the weights next to the priors of model.ts.
 *
 *   flock /work/bench.lock npx tsx bench/match-refit.ts [--data-dir .bench/match-data] [--pairs 200000] [--rows 20000] [--seed 101] [--record-only] [--tf]
 *
 * Writes scorer "fitted" (the matcher then scores with these parameters); --record-only writes "prior";
 * --tf fits the logistic and I threshold with the name TF adjustment and records tf_applied (the scorer applies it).
 */
import path from 'node:path';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';
import { buildMatchIndex } from '../src/identity/matcher/index-sidecar.ts';
import { WEIGHTS } from '../src/identity/matcher/model.ts';
import { matchParamsPath, writeMatchParams } from '../src/identity/matcher/params.ts';
import { refitMatchParams } from '../src/identity/matcher/refit.ts';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const dataDir = path.resolve(arg('data-dir', path.join(import.meta.dirname, '../.bench/match-data')));
const info = readCurrentRelease(dataDir);
if (!info) throw new Error(`no release in ${dataDir} (run bench/match-hardened.ts first)`);
const releaseFile = releaseFilePath(dataDir, info);
await buildMatchIndex(releaseFile, { threads: 2 });
const t = performance.now();
const params = await refitMatchParams(releaseFile, {
  randomPairs: Number(arg('pairs', '200000')),
  listRows: Number(arg('rows', '20000')),
  seed: Number(arg('seed', '101')),
  scorer: process.argv.includes('--record-only') ? 'prior' : 'fitted',
  tf: process.argv.includes('--tf'),
});
const file = matchParamsPath(releaseFile);
writeMatchParams(file, params);
console.log(`refit in ${((performance.now() - t) / 1000).toFixed(1)} s -> ${file}`);
console.log(
  `tf_applied ${params.tf_applied}; sample ${JSON.stringify(params.sample)}; lambda ${params.lambda.toFixed(4)}; EM ${JSON.stringify(params.em)}; logistic ${JSON.stringify(params.logistic)}; I threshold ${JSON.stringify(params.i_threshold)}`,
);
for (const f of Object.keys(WEIGHTS) as (keyof typeof WEIGHTS)[]) {
  console.log(`${f.padEnd(8)} prior [${WEIGHTS[f].join(', ')}]\n         fitted [${params.weights[f].join(', ')}]`);
  console.log(
    `         u [${params.u[f].map((x) => x.toPrecision(3)).join(', ')}]  m [${params.m[f].map((x) => x.toPrecision(3)).join(', ')}]`,
  );
}
