/**
 * A real S3-compatible server for tests: s3rver (Koa) on 127.0.0.1 and a free port, storing objects
 * in a temp dir, with one bucket. s3rver checks that the access key id exists (S3RVER) but does not
 * verify request signatures, so only a wrong key id is an auth failure here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export const S3_ACCESS_KEY_ID = 'S3RVER';
export const S3_SECRET_ACCESS_KEY = 'S3RVER';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** Where s3rver keeps the objects (to read them back). */
  directory: string;
  stop(): Promise<void>;
}

export async function startS3Server(bucket = 'deliveries'): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    directory,
    async stop() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
