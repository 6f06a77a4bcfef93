/**
 * Which redirect URIs a client may have (spec 5.11; issue #31). OAuth 2.1 and RFC 8252 allow plain `http`
 * only back to the person's own machine: the loopback interface (RFC 8252 section 7.3: 127.0.0.0/8 and
 * [::1]) and `localhost` (section 8.3 discourages it but does not forbid it, and common tool clients use
 * it). Anywhere else an authorization code over plain http can be read on the way. Checked on every
 * client the provider builds: registration, client ID metadata documents, and stored clients.
 */

/** Hostnames as the WHATWG URL parser normalizes them (so `http://2130706433/` is already 127.0.0.1). */
const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || IPV4_LOOPBACK.test(hostname);
}

/** Why these redirect URIs cannot be registered, or null when they can (only their scheme and host are judged here). */
export function redirectUriProblem(uris: unknown): string | null {
  if (!Array.isArray(uris)) return null;
  for (const uri of uris) {
    const parsed = typeof uri === 'string' ? URL.parse(uri) : null;
    if (parsed?.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
      return `redirect_uris: ${uri} uses plain http on a host that is not loopback; use https, or http only on 127.0.0.1, [::1] or localhost`;
    }
  }
  return null;
}
