import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.ts';
import { printJson, UsageError } from './output.ts';

const USAGE = 'ads matching refit [--pairs N] [--rows N] [--seed S] [--record-only] [--tf]';

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer, got "${value}"`);
  return n;
}

/**
 * `ads matching refit`: estimates the Fellegi-Sunter parameters of the current release (u from random
 * person pairs, m by EM over blocked pairs, name term frequencies, the confidence logistic) and writes
 * them beside the release (`<release>.match-params.json`, docs/decisions/045). Reads the warehouse only.
 */
export async function matchingCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      pairs: { type: 'string' },
      rows: { type: 'string' },
      seed: { type: 'string' },
      'record-only': { type: 'boolean' },
      tf: { type: 'boolean' },
    },
  });
  if (positionals[0] !== 'refit' || positionals.length > 1) throw new UsageError(USAGE);
  const config = loadConfig();
  const { readCurrentRelease, releaseFilePath } = await import('../graph/index.ts');
  const info = readCurrentRelease(config.dataDir);
  if (!info) throw new UsageError(`no graph release in ${config.dataDir}: run "ads graph generate" or "ads graph import" first`);
  const releaseFile = releaseFilePath(config.dataDir, info);
  const { buildMatchIndex } = await import('../identity/matcher/index.ts');
  const { matchParamsPath, writeMatchParams } = await import('../identity/matcher/params.ts');
  const { refitMatchParams } = await import('../identity/matcher/refit.ts');
  await buildMatchIndex(releaseFile);
  const params = await refitMatchParams(releaseFile, {
    randomPairs: positiveInt(values.pairs, 'pairs', 200_000),
    listRows: positiveInt(values.rows, 'rows', 20_000),
    seed: positiveInt(values.seed, 'seed', 101),
    scorer: values['record-only'] ? 'prior' : 'fitted',
    tf: values.tf === true,
  });
  const file = matchParamsPath(releaseFile);
  writeMatchParams(file, params);
  printJson({
    file,
    scorer: params.scorer,
    tf_applied: params.tf_applied,
    sample: params.sample,
    lambda: params.lambda,
    em: params.em,
    weights: params.weights,
    logistic: params.logistic,
    i_threshold: params.i_threshold,
  });
}
