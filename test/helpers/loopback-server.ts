import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request to a loopback stand-in, its body read whole. */
export interface LoopbackRequest {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  raw: string;
}

/**
 * An HTTP server on 127.0.0.1 and a free port for the faithful stand-ins of third-party APIs
 * (HubSpot, Mailchimp): reads each request's body, then hands it to `handle`.
 */
export async function startLoopbackServer(handle: (request: LoopbackRequest) => void) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle({ req, res, url: new URL(req.url ?? '/', 'http://x'), raw: Buffer.concat(chunks).toString('utf8') }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
