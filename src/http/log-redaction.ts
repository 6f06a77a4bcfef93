/**
 * Credentials never reach a log line (issue #31): a signed upload or download URL is its own
 * credential (its signature), and Fastify logs every request's URL. One function redacts a whole log
 * line as pino is about to write it, so URLs in `req.url`, in messages and in error texts are covered
 * alike, whoever logs them:
 * - the values of credential query parameters (signature, sig, token, access_token, code, X-Amz-*, ...);
 * - Authorization values (`Bearer ...`, `Basic ...`), API keys (ads_live_...) and exchanged access tokens
 *   (ads_at....);
 * - JSON properties named like a credential (authorization, api_key, password, client_secret, ...).
 */

export const REDACTED = '[REDACTED]';

/** Query parameters whose value is a credential, or grants one. */
const SECRET_PARAMS = [
  'signature',
  'sig',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'client_secret',
  'api_key',
  'apikey',
  'key',
  'password',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
];
const PARAM = new RegExp(`([?&;](?:${SECRET_PARAMS.join('|')})=)[^&#\\s"'\\\\]*`, 'gi');
/** A JSON property (as in a serialized log line) whose value is a credential. */
const PROPERTY =
  /("(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|api_key|apikey|raw_key|password|client_secret|access_token|refresh_token|id_token)"\s*:\s*")(?:[^"\\]|\\.)*"/gi;
const SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const KEYS = /\b(ads_live_|ads_at\.)[A-Za-z0-9._-]+/g;

/** The text with every credential it carries replaced by [REDACTED]; JSON stays JSON (no quote is touched). */
export function redactSecrets(text: string): string {
  return text
    .replace(PARAM, `$1${REDACTED}`)
    .replace(PROPERTY, `$1${REDACTED}"`)
    .replace(SCHEME, `$1 ${REDACTED}`)
    .replace(KEYS, `$1${REDACTED}`);
}

/**
 * Fastify's logger options with the redaction applied to every line written (pino's streamWrite hook
 * sees the serialized line); false stays silent.
 */
export function redactingLogger(options: boolean | object): boolean | object {
  if (options === false) return false;
  const base = options === true ? {} : (options as { hooks?: object });
  return { ...base, hooks: { ...base.hooks, streamWrite: redactSecrets } };
}
