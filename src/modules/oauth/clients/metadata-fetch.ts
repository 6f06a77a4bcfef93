/**
 * Fetching client ID metadata documents (spec 5.6, draft-ietf-oauth-client-id-metadata-document).
 *
 * The transport is injectable: `createOAuthModule({ metadataTransport })` takes any fetch-shaped
 * function: the service wires in the outbound-target policy's fetch (src/lib/outbound, src/wiring.ts);
 * tests reach documents served on loopback with their own certificate. `defaultMetadataTransport` is
 * the library's own transport (the global fetch with the dispatcher oidc-provider passes in `init`),
 * for callers that build the module without the service's policy. Caching follows the response's Cache-Control/Expires (30 s to
 * 24 h), done by the library.
 */
export type MetadataTransport = (url: URL | string, init: RequestInit) => Promise<Response>;

export const defaultMetadataTransport: MetadataTransport = (url, init) => globalThis.fetch(url, init);

/** Largest document read (the library's own limit is lower; this bounds what we buffer). */
const MAX_DOCUMENT_BYTES = 256 * 1024;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** True for an `http:` redirect URI on a loopback host (RFC 8252 section 7.3). */
export function isLoopbackRedirect(uri: unknown): boolean {
  if (typeof uri !== 'string') return false;
  const parsed = URL.parse(uri);
  return !!parsed && parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname);
}

/**
 * A document that names no `application_type` and redirects only to loopback is a native client
 * (RFC 8252): read that way, its portless loopback redirect URIs accept any port (spec 5.6).
 */
export function normalizeMetadataDocument(doc: Record<string, unknown>): Record<string, unknown> {
  const uris = doc.redirect_uris;
  if (doc.application_type === undefined && Array.isArray(uris) && uris.length > 0 && uris.every(isLoopbackRedirect)) {
    return { ...doc, application_type: 'native' };
  }
  return doc;
}

async function readLimited(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      throw new Error('client metadata document is too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The fetch given to the provider: the transport, plus the native-client reading of metadata documents. */
export function metadataFetch(transport: MetadataTransport): MetadataTransport {
  return async (url, init) => {
    const response = await transport(url, init);
    if (response.status !== 200) return response;
    const text = await readLimited(response);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = null;
    }
    const isDocument =
      !!doc && typeof doc === 'object' && !Array.isArray(doc) && (doc as { client_id?: unknown }).client_id === String(url);
    const body = isDocument ? JSON.stringify(normalizeMetadataDocument(doc as Record<string, unknown>)) : text;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(body, { status: response.status, headers });
  };
}
