/**
 * The data-release registry behind GET /v1/data-release. The spec describes a cached snapshot that
 * refreshes about every 15 minutes, so the answer is read from the release pointer at most once per
 * `ttlSeconds` and served from memory in between; `as_of` is when the snapshot was taken. A missing
 * release is never cached, so "retry shortly" works as soon as a release is published.
 */
import type { ReleaseInfo } from '../../graph/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { noReleaseError } from '../../graph/index.ts';

export interface DataReleaseView {
  current_release_major: number;
  current_release_minor: number;
  as_of: string;
}

export function createDataReleaseService(deps: { readRelease: () => ReleaseInfo | null; clock: Clock; ttlSeconds: number }) {
  const { readRelease, clock, ttlSeconds } = deps;
  let snapshot: { view: DataReleaseView; takenAt: number } | null = null;

  return {
    current(): DataReleaseView {
      const now = clock.now().getTime();
      if (snapshot && now - snapshot.takenAt < ttlSeconds * 1000) return snapshot.view;
      let release: ReleaseInfo | null;
      try {
        release = readRelease();
      } catch (err) {
        // An unreadable pointer: keep serving the last good snapshot rather than failing.
        if (snapshot) return snapshot.view;
        throw noReleaseError(err);
      }
      if (!release) {
        if (snapshot) return snapshot.view;
        throw noReleaseError();
      }
      const view = { current_release_major: release.major, current_release_minor: release.minor, as_of: new Date(now).toISOString() };
      snapshot = { view, takenAt: now };
      return view;
    },
  };
}

export type DataReleaseService = ReturnType<typeof createDataReleaseService>;
