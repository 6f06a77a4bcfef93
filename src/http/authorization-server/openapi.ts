/**
 * The OAuth protocol endpoints in the OpenAPI document, written by hand: they are not operations (form
 * bodies, RFC 6749 errors instead of our envelope), but clients need them described.
 */
type PathItems = Record<string, Record<string, Record<string, unknown>>>;

const oauthError = {
  description: 'RFC 6749 error',
  content: {
    'application/json': {
      schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
    },
  },
};
const serverError = {
  description: 'Server error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
};
const form = (properties: Record<string, unknown>, required: string[]) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties, required } } },
});
const str = (description: string) => ({ type: 'string', description });
const jsonObject = (description: string) => ({ description, content: { 'application/json': { schema: { type: 'object' } } } });
const base = (operationId: string, summary: string, description: string) => ({
  operationId,
  summary,
  description,
  tags: ['OAuth'],
  security: [],
});

export function oauthOpenApiPaths(resources: { api: string; mcp: string; a2a: string }): PathItems {
  const resourceParam = str(
    `Resource indicator (RFC 8707): ${resources.api}, ${resources.mcp} or ${resources.a2a}. Required for public clients.`,
  );
  return {
    '/v1/oauth/authorize': {
      get: {
        ...base(
          'oauthAuthorize',
          'Start an authorization (code + PKCE S256)',
          'Sends the person to sign in and consent, then redirects to `redirect_uri` with `code` (single use, 60 s), `state` and `iss` (RFC 9207), or with `error`. ' +
            'PKCE S256 is required for every client. One resource per authorization; `openid`/`email` only with the tool resource.',
        ),
        parameters: [
          ['client_id', 'Pre-registered id, dynamic registration id, or the HTTPS URL of a client metadata document', true],
          ['redirect_uri', 'Exactly a registered redirect URI (a portless loopback URI of a native client may take any port)', true],
          ['response_type', '`code`', true],
          ['scope', 'Space-separated: discovery, creator, account-read, openid, email', false],
          ['resource', resourceParam.description, false],
          ['code_challenge', 'BASE64URL(SHA-256(code_verifier))', true],
          ['code_challenge_method', '`S256`', true],
          ['state', 'Opaque value returned unchanged; check it', false],
        ].map(([name, description, required]) => ({ name, in: 'query', required, schema: { type: 'string' }, description })),
        responses: {
          303: { description: 'To the sign-in page, or back to the client with code, state and iss' },
          400: { description: 'Invalid client or redirect URI (an HTML page; never redirected)' },
          500: serverError,
        },
      },
    },
    '/v1/oauth/token': {
      post: {
        ...base(
          'oauthToken',
          'Exchange a code, refresh token or device code for tokens',
          'Grant types: `authorization_code` (code, redirect_uri, code_verifier, resource), `refresh_token` (rotating; reuse of a used one revokes the grant; a refresh naming a different resource, even by a trailing slash, is refused without rotating), ' +
            '`urn:ietf:params:oauth:grant-type:device_code` (device_code; `authorization_pending`, `slow_down` adds 5 s, `access_denied`, `expired_token`). ' +
            'Confidential clients authenticate with HTTP Basic (client_secret_basic). Access tokens live 30 minutes; refresh for 90 days from consent.',
        ),
        requestBody: form(
          {
            grant_type: str('authorization_code, refresh_token or urn:ietf:params:oauth:grant-type:device_code'),
            code: str('Authorization code'),
            redirect_uri: str('The redirect_uri of the authorization'),
            code_verifier: str('PKCE verifier'),
            refresh_token: str('Refresh token'),
            device_code: str('Device code'),
            client_id: str('Client id (public clients)'),
            resource: resourceParam,
          },
          ['grant_type'],
        ),
        responses: {
          200: {
            description: 'Tokens',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    access_token: { type: 'string' },
                    token_type: { type: 'string' },
                    expires_in: { type: 'integer' },
                    refresh_token: { type: 'string' },
                    id_token: { type: 'string', description: 'RS256, for grants with openid' },
                    scope: { type: 'string' },
                  },
                },
              },
            },
          },
          400: oauthError,
          401: oauthError,
          500: serverError,
        },
      },
    },
    '/v1/oauth/revoke': {
      post: {
        ...base(
          'oauthRevoke',
          'Revoke an access or refresh token (RFC 7009)',
          'Revoking a refresh token ends its grant; the client must connect again.',
        ),
        requestBody: form(
          { token: str('The token'), token_type_hint: str('access_token or refresh_token'), client_id: str('Client id (public clients)') },
          ['token'],
        ),
        responses: { 200: { description: 'Revoked (or unknown)' }, 400: oauthError, 401: oauthError, 500: serverError },
      },
    },
    '/v1/oauth/device_authorization': {
      post: {
        ...base(
          'oauthDeviceAuthorization',
          'Start a device authorization (RFC 8628)',
          `For clients without a browser redirect. \`resource\` is ${resources.a2a} (spec 4.1) or ${resources.mcp}. Show verification_uri_complete, poll the token endpoint every \`interval\` seconds; codes live 10 minutes.`,
        ),
        requestBody: form({ client_id: str('Client id'), resource: resourceParam, scope: str('discovery, creator, account-read') }, [
          'client_id',
          'resource',
        ]),
        responses: {
          200: {
            description: 'Device code',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    device_code: { type: 'string' },
                    user_code: { type: 'string' },
                    verification_uri: { type: 'string' },
                    verification_uri_complete: { type: 'string' },
                    expires_in: { type: 'integer' },
                    interval: { type: 'integer' },
                  },
                },
              },
            },
          },
          400: oauthError,
          401: oauthError,
          500: serverError,
        },
      },
    },
    '/v1/oauth/register': {
      post: {
        ...base(
          'oauthRegister',
          'Register a public client (RFC 7591)',
          'Public clients only (`token_endpoint_auth_method: none`). A device-only client registers without redirect URIs, with grant types device_code and refresh_token and empty response_types. ' +
            'Native clients (`application_type: native`) may use loopback redirect URIs on any port. Partners with a secret are registered by an operator.',
        ),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  client_name: { type: 'string' },
                  redirect_uris: { type: 'array', items: { type: 'string' } },
                  grant_types: { type: 'array', items: { type: 'string' } },
                  response_types: { type: 'array', items: { type: 'string' } },
                  token_endpoint_auth_method: { type: 'string', enum: ['none'] },
                  application_type: { type: 'string', enum: ['web', 'native'] },
                  scope: { type: 'string' },
                },
              },
            },
          },
        },
        responses: { 201: jsonObject('The registered client (client_id)'), 400: oauthError, 500: serverError },
      },
    },
    '/v1/oauth/userinfo': {
      get: {
        operationId: 'oauthUserinfo',
        tags: ['OAuth'],
        summary: 'The person behind a tool-resource token',
        description: `Takes an access token for ${resources.mcp} granted \`openid\`. Answers \`sub\`, and \`email\` with \`email_verified: true\` when email was granted.`,
        responses: {
          200: {
            description: 'Claims',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { sub: { type: 'string' }, email: { type: 'string' }, email_verified: { type: 'boolean' } },
                },
              },
            },
          },
          401: oauthError,
          403: oauthError,
          500: serverError,
        },
      },
    },
    '/v1/oauth/jwks': {
      get: {
        ...base('oauthJwks', 'Public keys that sign id_tokens (RS256)', 'JSON Web Key Set.'),
        responses: { 200: jsonObject('JWKS'), 500: serverError },
      },
    },
    '/.well-known/oauth-authorization-server': {
      get: {
        ...base(
          'oauthServerMetadata',
          'Authorization server metadata (RFC 8414)',
          'Endpoints, PKCE S256, `iss` in responses, client metadata documents.',
        ),
        responses: { 200: jsonObject('Metadata'), 500: serverError },
      },
    },
    '/.well-known/openid-configuration': {
      get: {
        ...base('openidConfiguration', 'OpenID Connect discovery', 'The same metadata, for OIDC clients.'),
        responses: { 200: jsonObject('Metadata'), 500: serverError },
      },
    },
    '/.well-known/oauth-protected-resource/v1': {
      get: {
        ...base('apiResourceMetadata', 'Protected resource metadata of the REST API (RFC 9728)', `Resource ${resources.api}.`),
        responses: { 200: jsonObject('Metadata'), 500: serverError },
      },
    },
  };
}
