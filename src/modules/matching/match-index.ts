/**
 * The match index of the current release, built lazily: the first match after a release becomes
 * current builds the sidecar (buildMatchIndex is write-once and cross-process safe: temp file +
 * rename), and concurrent requests in this process wait for that one build instead of starting their
 * own. A release built by `ads graph ...` may also build it up front; then this is just a stat.
 */
import fs from 'node:fs';
import { buildMatchIndex, matchIndexPath } from '../../identity/matcher/index.ts';
import { releaseFilePath, type ReleaseInfo } from '../../graph/index.ts';

export interface MatchIndexSource {
  release(): Promise<ReleaseInfo> | ReleaseInfo;
}

export interface CurrentIndex {
  release: ReleaseInfo;
  indexPath: string;
}

export function createMatchIndexProvider(deps: {
  warehouse: MatchIndexSource;
  dataDir: string;
  threads?: number;
  memoryLimit?: string;
  build?: typeof buildMatchIndex;
}) {
  const build = deps.build ?? buildMatchIndex;
  const building = new Map<string, Promise<string>>();

  function ensure(releaseFile: string): Promise<string> {
    const target = matchIndexPath(releaseFile);
    if (fs.existsSync(target)) return Promise.resolve(target);
    let p = building.get(releaseFile);
    if (!p) {
      p = build(releaseFile, {
        ...(deps.threads ? { threads: deps.threads } : {}),
        ...(deps.memoryLimit ? { memoryLimit: deps.memoryLimit } : {}),
      }).finally(() => building.delete(releaseFile));
      building.set(releaseFile, p);
    }
    return p;
  }

  return {
    /** The current release and its (built) match index; throws the warehouse's unavailability errors. */
    async current(): Promise<CurrentIndex> {
      const release = await deps.warehouse.release();
      const indexPath = await ensure(releaseFilePath(deps.dataDir, release));
      return { release, indexPath };
    },
    /** Whether the current release's index exists (no build); throws the warehouse's unavailability errors. */
    async isBuilt(): Promise<boolean> {
      return fs.existsSync(matchIndexPath(releaseFilePath(deps.dataDir, await deps.warehouse.release())));
    },
    /** Builds the index of a release ahead of traffic (e.g. right after it is made current). */
    prepare: (release: ReleaseInfo) => ensure(releaseFilePath(deps.dataDir, release)),
  };
}

export type MatchIndexProvider = ReturnType<typeof createMatchIndexProvider>;
