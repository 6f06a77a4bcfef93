/**
 * A loopback stand-in of HubSpot's OAuth v1 and CRM v3 contact APIs (HubSpot is unreachable from tests),
 * answering with HubSpot's shapes: form-encoded token grants (authorization_code, refresh_token) with
 * access tokens that expire, token info with hub_id and hub_domain, paged contacts
 * (results + paging.next.after), contact property creation (409 when it exists) and removal, batch
 * updates answering 207 with per-id errors, 401 EXPIRED_AUTHENTICATION, and 429 RATE_LIMIT answers
 * with Retry-After. Test controls are methods on the returned object.
 */
import { randomBytes } from 'node:crypto';
import { startLoopbackServer } from './loopback-server.ts';
import { hubspotListRoute, type HubSpotList } from './hubspot-lists.ts';

export interface HubSpotContact {
  id: string;
  properties: Record<string, string | null>;
}
interface Hub {
  hubId: number;
  domain: string;
  contacts: HubSpotContact[];
  properties: Set<string>;
  lists?: HubSpotList[];
}

export interface HubSpotStandIn {
  url: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Creates a portal with these contacts; returns its hub id. */
  addHub(domain: string, contacts: Record<string, string | null>[]): number;
  hub(hubId: number): Hub;
  /** The consent step: a code for this hub (what HubSpot sends to the redirect URI). */
  approve(hubId: number): string;
  /** Every access token issued so far stops working (401 EXPIRED_AUTHENTICATION). */
  expireAccessTokens(): void;
  /** Every refresh token stops working (the app was uninstalled from the portal). */
  forgetRefreshTokens(): void;
  /** The next `n` API calls answer 429 with Retry-After: `seconds`. */
  rateLimitNext(n: number, seconds?: number): void;
  /** Batch updates fail for these contact ids (207 with errors). */
  rejectIds: Set<string>;
  /** Property removals answer 500 while set. */
  failPropertyDeletes: boolean;
  /** Requests seen, as "METHOD path". */
  log: string[];
  refreshes: number;
  revoked: string[];
  close(): Promise<void>;
}

const token = () => randomBytes(18).toString('hex');
const error = (category: string, message: string) => ({ status: 'error', message, correlationId: token(), category });

export async function startHubSpot(): Promise<HubSpotStandIn> {
  const hubs = new Map<number, Hub>();
  const codes = new Map<string, number>();
  const access = new Map<string, { hubId: number; valid: boolean }>();
  const refresh = new Map<string, number>();
  let limited = 0;
  let retryAfter = 1;
  // Portal ids differ between stand-ins: tests of several files share one control plane.
  let nextHub = 10_000_000 + Math.floor(Math.random() * 80_000_000);
  let nextContact = 101;
  let nextList = 9001;

  const s = {} as HubSpotStandIn;
  const loopback = await startLoopbackServer(({ req, res, url, raw }) => {
    s.log.push(`${req.method} ${url.pathname}`);
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json;charset=utf-8' }), ...headers });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (limited > 0) {
      limited--;
      return send(
        429,
        {
          status: 'error',
          message: 'You have reached your secondly limit.',
          errorType: 'RATE_LIMIT',
          correlationId: token(),
          policyName: 'SECONDLY',
        },
        { 'retry-after': String(retryAfter) },
      );
    }
    const issue = (hubId: number) => {
      const a = token();
      const r = token();
      access.set(a, { hubId, valid: true });
      refresh.set(r, hubId);
      return { token_type: 'bearer', access_token: a, refresh_token: r, expires_in: 1800 };
    };
    if (req.method === 'POST' && url.pathname === '/oauth/v1/token') {
      const form = new URLSearchParams(raw);
      if (form.get('client_id') !== s.clientId || form.get('client_secret') !== s.clientSecret)
        return send(400, { status: 'BAD_CLIENT_ID', message: 'missing or invalid client_id' });
      if (form.get('grant_type') === 'authorization_code') {
        const hubId = codes.get(form.get('code') ?? '');
        if (hubId === undefined || form.get('redirect_uri') !== s.redirectUri)
          return send(400, { status: 'BAD_AUTH_CODE', message: 'missing or unknown auth code' });
        codes.delete(form.get('code')!);
        return send(200, issue(hubId));
      }
      if (form.get('grant_type') === 'refresh_token') {
        const hubId = refresh.get(form.get('refresh_token') ?? '');
        if (hubId === undefined) return send(400, { status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token' });
        s.refreshes++;
        const a = token();
        access.set(a, { hubId, valid: true });
        return send(200, { token_type: 'bearer', access_token: a, refresh_token: form.get('refresh_token'), expires_in: 1800 });
      }
      return send(400, { status: 'BAD_GRANT_TYPE', message: 'unsupported grant_type' });
    }
    let m = /^\/oauth\/v1\/access-tokens\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && m) {
      const a = access.get(decodeURIComponent(m[1]!));
      if (!a || !a.valid) return send(404, { status: 'error', message: 'Token not found' });
      const hub = hubs.get(a.hubId)!;
      return send(200, {
        token: m[1],
        user: 'owner@example.com',
        hub_domain: hub.domain,
        scopes: ['crm.objects.contacts.read', 'crm.objects.contacts.write', 'oauth'],
        hub_id: hub.hubId,
        app_id: 777,
        expires_in: 1700,
        user_id: 9,
        token_type: 'access',
      });
    }
    m = /^\/oauth\/v1\/refresh-tokens\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'DELETE' && m) {
      s.revoked.push(decodeURIComponent(m[1]!));
      refresh.delete(decodeURIComponent(m[1]!));
      return send(204);
    }
    // CRM API: bearer token required.
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = bearer ? access.get(bearer) : undefined;
    if (!grant || !grant.valid)
      return send(401, error('EXPIRED_AUTHENTICATION', 'The OAuth token used to make this call expired 5 second(s) ago.'));
    const hub = hubs.get(grant.hubId)!;
    if (req.method === 'GET' && url.pathname === '/crm/v3/objects/contacts') {
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 10), 100);
      const start = Number(url.searchParams.get('after') ?? 0);
      const wanted = (url.searchParams.get('properties') ?? 'firstname,lastname,email').split(',');
      const page = hub.contacts.slice(start, start + limit);
      const next = start + limit < hub.contacts.length ? String(start + limit) : null;
      return send(200, {
        results: page.map((c) => ({
          id: c.id,
          properties: Object.fromEntries(
            wanted.filter((p) => p in c.properties || hub.properties.has(p)).map((p) => [p, c.properties[p] ?? null]),
          ),
          createdAt: '2026-01-05T10:00:00.000Z',
          updatedAt: '2026-01-05T10:00:00.000Z',
          archived: false,
        })),
        ...(next ? { paging: { next: { after: next, link: `${s.url}/crm/v3/objects/contacts?after=${next}` } } } : {}),
      });
    }
    if (req.method === 'POST' && url.pathname === '/crm/v3/properties/contacts') {
      const body = JSON.parse(raw) as { name: string; label: string; type: string; fieldType: string; groupName: string };
      if (!body.name || !body.label || !body.type || !body.fieldType || !body.groupName)
        return send(400, error('VALIDATION_ERROR', 'Property definition is incomplete'));
      if (hub.properties.has(body.name)) return send(409, error('OBJECT_ALREADY_EXISTS', `Property named '${body.name}' already exists.`));
      hub.properties.add(body.name);
      return send(201, { ...body, createdAt: new Date().toISOString(), hidden: false, formField: false });
    }
    m = /^\/crm\/v3\/properties\/contacts\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'DELETE' && m) {
      if (s.failPropertyDeletes) return send(500, error('INTERNAL_ERROR', 'Internal error'));
      const name = decodeURIComponent(m[1]!);
      if (!hub.properties.delete(name)) return send(404, error('OBJECT_NOT_FOUND', `Unable to find property ${name}`));
      for (const c of hub.contacts) delete c.properties[name];
      return send(204);
    }
    if (req.method === 'POST' && url.pathname === '/crm/v3/objects/contacts/batch/update') {
      const { inputs } = JSON.parse(raw) as { inputs: { id: string; properties: Record<string, string> }[] };
      if (!Array.isArray(inputs) || inputs.length > 100) return send(400, error('VALIDATION_ERROR', 'inputs must hold 1 to 100 objects'));
      const results: unknown[] = [];
      const errors: unknown[] = [];
      for (const input of inputs) {
        const contact = hub.contacts.find((c) => c.id === input.id);
        const unknown = Object.keys(input.properties).find(
          (p) => !hub.properties.has(p) && !['firstname', 'lastname', 'email'].includes(p),
        );
        if (!contact)
          errors.push({
            status: 'error',
            category: 'OBJECT_NOT_FOUND',
            message: `Object not found. objectId: ${input.id}`,
            context: { ids: [input.id] },
          });
        else if (unknown)
          errors.push({
            status: 'error',
            category: 'VALIDATION_ERROR',
            message: `Property "${unknown}" does not exist`,
            context: { ids: [input.id] },
          });
        else if (s.rejectIds.has(input.id))
          errors.push({
            status: 'error',
            category: 'VALIDATION_ERROR',
            message: 'Contact is locked by a workflow',
            context: { ids: [input.id] },
          });
        else {
          Object.assign(contact.properties, input.properties);
          results.push({ id: contact.id, properties: contact.properties, updatedAt: new Date().toISOString(), archived: false });
        }
      }
      const body = { status: 'COMPLETE', results, startedAt: new Date().toISOString(), completedAt: new Date().toISOString() };
      return errors.length ? send(207, { ...body, numErrors: errors.length, errors }) : send(200, body);
    }
    if (
      hubspotListRoute({
        method: req.method ?? 'GET',
        path: url.pathname,
        raw,
        hub,
        send,
        error,
        rejectIds: s.rejectIds,
        newContactId: () => String(nextContact++),
        newListId: () => String(nextList++),
      })
    )
      return;
    return send(404, error('OBJECT_NOT_FOUND', `No route ${req.method} ${url.pathname}`));
  });
  const url = loopback.url;
  Object.assign(s, {
    url,
    clientId: 'test-client-id',
    clientSecret: 'test-client-secret',
    redirectUri: 'https://console.example.com/connections/hubspot',
    rejectIds: new Set<string>(),
    failPropertyDeletes: false,
    log: [],
    refreshes: 0,
    revoked: [],
    addHub(domain: string, contacts: Record<string, string | null>[]) {
      const hubId = nextHub++;
      hubs.set(hubId, {
        hubId,
        domain,
        properties: new Set(),
        contacts: contacts.map((p) => ({ id: String(nextContact++), properties: { ...p } })),
      });
      return hubId;
    },
    hub: (hubId: number) => hubs.get(hubId)!,
    approve(hubId: number) {
      const code = token();
      codes.set(code, hubId);
      return code;
    },
    expireAccessTokens() {
      for (const a of access.values()) a.valid = false;
    },
    forgetRefreshTokens() {
      refresh.clear();
    },
    rateLimitNext(n: number, seconds = 1) {
      limited = n;
      retryAfter = seconds;
    },
    close: loopback.close,
  } satisfies Partial<HubSpotStandIn>);
  return s;
}

/** The integration settings that point the service at the stand-in. */
export const hubspotSettings = (h: HubSpotStandIn) => ({
  hubspot: {
    clientId: h.clientId,
    clientSecret: h.clientSecret,
    redirectUri: h.redirectUri,
    apiBaseUrl: h.url,
    authorizeUrl: `${h.url}/oauth/authorize`,
  },
  maxContactsPerRun: 10_000,
  maxRetryAfterSeconds: 2,
});
