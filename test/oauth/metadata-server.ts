/**
 * Client ID metadata documents served over HTTPS on loopback, with a certificate the tests generate, and
 * the transport the service is given to reach them (it trusts that certificate and resolves every name to
 * 127.0.0.1: loopback only).
 */
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export interface MetadataServer {
  origin: string;
  /** Serves `doc` at `path` with these response headers; counts fetches. */
  serve(path: string, doc: Record<string, unknown>, headers?: Record<string, string>): string;
  fetches(path: string): number;
  transport: (url: URL | string, init: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

export async function startMetadataServer(): Promise<MetadataServer> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const documents = new Map<string, { body: string; headers: Record<string, string> }>();
  const counts = new Map<string, number>();
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const doc = documents.get(path);
    if (!doc) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', ...doc.headers }).end(doc.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;

  const transport = (url: URL | string, init: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((v, k) => (headers[k] = v));
      const req = request(
        url,
        {
          method: init.method ?? 'GET',
          headers,
          ca: pems.cert,
          signal: init.signal ?? undefined,
          lookup: (_host, options, cb) =>
            (options as { all?: boolean }).all
              ? (cb as never as (e: null, a: object[]) => void)(null, [{ address: '127.0.0.1', family: 4 }])
              : cb(null, '127.0.0.1', 4),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const out = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: out }));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });

  return {
    origin,
    serve(path, doc, headers = {}) {
      documents.set(path, { body: JSON.stringify(doc), headers });
      return `${origin}${path}`;
    },
    fetches: (path) => counts.get(path) ?? 0,
    transport,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
