/**
 * `download`: parts go into the object store (src/objects/store.ts) under
 * deliveries/{org_id}/{delivery_id}/{part}; the deliveries module signs 24-hour URLs for those keys
 * (src/objects/signed-urls.ts). No network. A part is hard-linked into place when the export folder is
 * on the same file system (instant), copied otherwise, always through a temp name and a rename.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ObjectStore } from '../objects/store.ts';
import { Checker } from './config.ts';
import type { DeliveryDestination } from './types.ts';

export type DownloadConfig = Record<string, never>;

export const downloadObjectKey = (orgId: string, deliveryId: string, part: string) => `deliveries/${orgId}/${deliveryId}/${part}`;

function sameFile(a: string, b: string): boolean {
  const sa = fs.statSync(a);
  const sb = fs.statSync(b, { throwIfNoEntry: false });
  return sb !== undefined && sa.dev === sb.dev && sa.ino === sb.ino;
}

export function downloadDestination(store: ObjectStore): DeliveryDestination<DownloadConfig, null> {
  return {
    kind: 'download',
    checkConfig: (config) => new Checker(config, 'config', []).done({}),
    targetHost: () => null,
    checkSecrets: (secrets) => new Checker(secrets, 'secrets', []).done(null),
    async testConnection() {},
    async upload(parts, target) {
      return parts.map((part) => {
        const key = downloadObjectKey(target.orgId, target.deliveryId, part.name);
        const file = store.pathOf(key);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        const tmp = `${file}.tmp`;
        fs.rmSync(tmp, { force: true });
        // Already linked by an earlier attempt: renaming a second link of the same file over it would
        // be a no-op that leaves the temp link behind (POSIX rename between links of one inode).
        if (sameFile(part.path, file)) return { name: part.name, location: key, bytes: fs.statSync(file).size };
        try {
          fs.linkSync(part.path, tmp);
        } catch {
          fs.copyFileSync(part.path, tmp);
        }
        fs.renameSync(tmp, file);
        return { name: part.name, location: key, bytes: fs.statSync(file).size };
      });
    },
  };
}
