/**
 * Request bodies, for every route of every adapter (REST, OAuth, MCP, A2A, uploads, pages):
 * - Content-Encoding gzip, deflate and br are decoded here, once, before any parser or library sees the
 *   body; the route's body limit applies to the decoded bytes. The whole body is decoded inside the
 *   preParsing hook, so a body that is not what it declares is a refusal of this request (400) wherever
 *   the body would have gone next: a parser, a library reading the raw request, or nobody (a GET with a
 *   body). A streaming decoder whose output nobody read used to fail outside any handler and end the
 *   process (issue #31).
 * - Any other encoding, or any encoding on a route that hands the raw bytes on (a signed upload; the
 *   authorization server, which reads the request itself), is 415.
 * - JSON: an empty body with Content-Type: application/json reads as no body (spec 4.5 allows
 *   POST /v1/match/file with an empty body); operations whose schema requires a body then answer 400
 *   with the envelope. Anything else must be well-formed JSON.
 */
import { PassThrough, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, type ZlibOptions } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../core/errors.ts';
import type { Operation } from '../core/operation.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route hands the request's bytes on as they came (the authorization server reads them itself): no Content-Encoding. */
    rawRequest?: boolean;
  }
}

type Decode = (buffer: Buffer, options: ZlibOptions) => Promise<Buffer>;
const DECODERS: Record<string, Decode> = {
  gzip: promisify(gunzip) as Decode,
  'x-gzip': promisify(gunzip) as Decode,
  deflate: promisify(inflate) as Decode,
  br: promisify(brotliDecompress) as Decode,
};

/** A body that cannot be read as what it declares (JSON-RPC adapters answer these as -32700 Parse error). */
export class UnreadableBody extends DomainError {}
export const isUnreadableBody = (error: DomainError) => error instanceof UnreadableBody || error.code === 'INVALID_JSON';

const tooLarge = () =>
  new DomainError('PAYLOAD_TOO_LARGE', 'The request body is too large.', {
    nextStep: 'Send a smaller body; large files go through the signed upload URL.',
  });

const hasBody = (headers: FastifyRequest['headers']) =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

function refuseEncoding(encoding: string, rawUpload: boolean): DomainError {
  return new DomainError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding "${encoding.slice(0, 40)}" is not accepted here.`, {
    nextStep: rawUpload
      ? 'Upload the file bytes as they are (a gzip file is declared with compression: "gzip", not Content-Encoding).'
      : 'Send the body uncompressed, or with Content-Encoding gzip, deflate or br where the route accepts them.',
  });
}

/** Reads the encoded bytes, refusing more than `limit`. */
async function readAll(payload: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of payload) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/** The preParsing step: the body as the route's parser should read it (decoded), or a refusal. */
export async function decodeBody(request: FastifyRequest, payload: Readable): Promise<Readable> {
  const encoding = String(request.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding === 'identity' || encoding === '' || !hasBody(request.headers)) return payload;
  const config = request.routeOptions.config as { operation?: Operation; rawRequest?: boolean } | undefined;
  const rawUpload = config?.operation?.rawBody !== undefined;
  const decode = DECODERS[encoding];
  if (!decode || rawUpload || config?.rawRequest) throw refuseEncoding(encoding, rawUpload);
  const limit = request.routeOptions.bodyLimit ?? 1024 * 1024;
  const encoded = await readAll(payload, limit);
  let decoded: Buffer;
  try {
    decoded = await decode(encoded, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new UnreadableBody('INVALID_REQUEST', `The body is not valid ${encoding} data.`, {
      nextStep: 'Compress the body with the Content-Encoding it declares, or send it uncompressed.',
    });
  }
  const out = new PassThrough() as PassThrough & { receivedEncodedLength?: number };
  out.receivedEncodedLength = encoded.length; // Fastify compares Content-Length with the encoded bytes
  out.end(decoded);
  return out;
}

export function registerBodyParsing(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => decodeBody(request, payload));
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(
        new DomainError('INVALID_JSON', `The request body is not valid JSON: ${(error as Error).message}`, {
          nextStep: 'Send a well-formed JSON body with Content-Type: application/json.',
        }),
        undefined,
      );
    }
  });
}
