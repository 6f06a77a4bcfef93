/**
 * A loopback stand-in of Mailchimp's OAuth 2 (login.mailchimp.com) and Marketing API v3 (Mailchimp is
 * unreachable from tests), answering with Mailchimp's shapes: form-encoded code exchange giving an access
 * token that does not expire (`expires_in: 0`, no refresh token), the metadata endpoint giving the data
 * center `dc` and `api_endpoint`, the API root (account_id), audiences (lists) with offset/count paging,
 * members keyed by subscriber hash (md5 of the lowercased email), member PATCH/PUT, batch subscribe
 * (POST /lists/{id}), merge fields (tags of at most 10 characters), audience creation and deletion,
 * and errors as application/problem+json {type, title, status, detail, instance}, with 429 answers
 * (too many simultaneous connections) and 401 for a token the account revoked. Test controls are
 * methods on the returned object.
 */
import { createHash, randomBytes } from 'node:crypto';
import { startLoopbackServer } from './loopback-server.ts';

export interface MailchimpMember {
  email_address: string;
  status: 'subscribed' | 'unsubscribed' | 'cleaned' | 'pending' | 'transactional';
  merge_fields: Record<string, unknown>;
}
interface MergeField {
  merge_id: number;
  tag: string;
  name: string;
  type: string;
}
export interface MailchimpList {
  id: string;
  name: string;
  members: MailchimpMember[];
  mergeFields: MergeField[];
}
interface Account {
  accountId: string;
  name: string;
  dc: string;
  lists: MailchimpList[];
}

export interface MailchimpStandIn {
  url: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Creates an account with one audience holding these members; returns the account id. */
  addAccount(name: string, members: Omit<MailchimpMember, 'status'>[]): string;
  account(accountId: string): Account;
  /** The consent step: a code for this account (what Mailchimp sends to the redirect URI). */
  approve(accountId: string): string;
  /** Every access token issued so far stops working (the user removed the app): 401. */
  revokeTokens(): void;
  /** The next `n` API calls answer 429. */
  rateLimitNext(n: number): void;
  /** Member updates of these emails answer 400 (Mailchimp refuses them). */
  rejectEmails: Set<string>;
  /** Merge field removals answer 500 while set. */
  failMergeFieldDeletes: boolean;
  /** Requests seen, as "METHOD path". */
  log: string[];
  close(): Promise<void>;
}

export const subscriberHash = (email: string) => createHash('md5').update(email.toLowerCase()).digest('hex');
const hex = (n: number) => randomBytes(n).toString('hex');
const DEFAULT_FIELDS: MergeField[] = [
  { merge_id: 1, tag: 'FNAME', name: 'First Name', type: 'text' },
  { merge_id: 2, tag: 'LNAME', name: 'Last Name', type: 'text' },
  { merge_id: 3, tag: 'ADDRESS', name: 'Address', type: 'address' },
  { merge_id: 4, tag: 'PHONE', name: 'Phone Number', type: 'phone' },
];

export async function startMailchimp(): Promise<MailchimpStandIn> {
  const accounts = new Map<string, Account>();
  const codes = new Map<string, string>();
  const tokens = new Map<string, { accountId: string; valid: boolean }>();
  let limited = 0;
  let nextField = 100;

  const s = {} as MailchimpStandIn;
  const loopback = await startLoopbackServer(({ req, res, url, raw }) => {
    s.log.push(`${req.method} ${url.pathname}`);
    const send = (status: number, body?: unknown, type = 'application/json; charset=utf-8') => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': type });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const problem = (status: number, title: string, detail: string, extra: object = {}) =>
      send(
        status,
        {
          type: 'https://mailchimp.com/developer/marketing/docs/errors/',
          title,
          status,
          detail,
          instance: `${hex(4)}-${hex(2)}-${hex(2)}-${hex(2)}-${hex(6)}`,
          ...extra,
        },
        'application/problem+json; charset=utf-8',
      );

    // OAuth 2 at login.mailchimp.com.
    if (req.method === 'POST' && url.pathname === '/oauth2/token') {
      const form = new URLSearchParams(raw);
      if (form.get('client_id') !== s.clientId || form.get('client_secret') !== s.clientSecret)
        return send(401, { error: 'invalid_client', error_description: 'Invalid client credentials' });
      if (form.get('grant_type') !== 'authorization_code')
        return send(400, { error: 'unsupported_grant_type', error_description: 'Only authorization_code is supported' });
      const accountId = codes.get(form.get('code') ?? '');
      if (accountId === undefined || form.get('redirect_uri') !== s.redirectUri)
        return send(400, { error: 'invalid_grant', error_description: 'Invalid authorization code' });
      codes.delete(form.get('code')!);
      const token = hex(16);
      tokens.set(token, { accountId, valid: true });
      return send(200, { access_token: token, expires_in: 0, scope: null });
    }
    if (req.method === 'GET' && url.pathname === '/oauth2/metadata') {
      const t = /^OAuth (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const grant = t ? tokens.get(t) : undefined;
      if (!grant || !grant.valid) return send(401, { error: 'invalid_token', error_description: 'Invalid token' });
      const a = accounts.get(grant.accountId)!;
      return send(200, {
        dc: a.dc,
        role: 'owner',
        accountname: a.name,
        user_id: Number(a.accountId.replace(/\D/g, '').slice(0, 8)) || 1,
        login: { email: 'owner@example.com', login_email: 'owner@example.com', login_name: 'owner', login_id: 1 },
        login_url: 'https://login.mailchimp.com',
        api_endpoint: s.url,
      });
    }

    // Marketing API v3: the token as Bearer (or OAuth).
    const t = /^(?:Bearer|OAuth) (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = t ? tokens.get(t) : undefined;
    if (!grant || !grant.valid)
      return problem(401, 'API Key Invalid', "Your API key may be invalid, or you've attempted to access the wrong datacenter.");
    if (limited > 0) {
      limited--;
      return problem(429, 'Too Many Requests', 'You have exceeded the limit of 10 simultaneous connections.');
    }
    const account = accounts.get(grant.accountId)!;
    const path = url.pathname.replace(/\/+$/, '');
    const count = Math.min(Number(url.searchParams.get('count') ?? 10), 1000);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      return problem(400, 'JSON Parse Exception', 'We encountered an unspecified JSON parsing error.');
    }
    if (req.method === 'GET' && path === '/3.0') {
      return send(200, {
        account_id: account.accountId,
        login_id: '1',
        account_name: account.name,
        email: 'owner@example.com',
        role: 'owner',
        contact: {
          company: account.name,
          addr1: '675 Ponce de Leon Ave NE',
          addr2: 'Suite 5000',
          city: 'Atlanta',
          state: 'GA',
          zip: '30308',
          country: 'US',
        },
        total_subscribers: account.lists.reduce((n, l) => n + l.members.length, 0),
      });
    }
    if (req.method === 'GET' && path === '/3.0/lists') {
      return send(200, {
        lists: account.lists
          .slice(offset, offset + count)
          .map((l) => ({ id: l.id, name: l.name, stats: { member_count: l.members.length } })),
        total_items: account.lists.length,
      });
    }
    if (req.method === 'POST' && path === '/3.0/lists') {
      if (
        !body?.name ||
        !body.contact ||
        !body.permission_reminder ||
        !body.campaign_defaults ||
        typeof body.email_type_option !== 'boolean'
      ) {
        return problem(400, 'Invalid Resource', 'The resource submitted could not be validated.', {
          errors: [
            {
              field: '',
              message: 'Required fields were not provided: name, contact, permission_reminder, campaign_defaults, email_type_option',
            },
          ],
        });
      }
      const list: MailchimpList = { id: hex(5), name: String(body.name), members: [], mergeFields: DEFAULT_FIELDS.map((f) => ({ ...f })) };
      account.lists.push(list);
      return send(200, { id: list.id, name: list.name, stats: { member_count: 0 } });
    }
    let m = /^\/3\.0\/lists\/([^/]+)(\/.*)?$/.exec(path);
    const list = m ? account.lists.find((l) => l.id === m![1]) : undefined;
    if (m && !list) return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
    const rest = m?.[2] ?? '';
    if (list && req.method === 'DELETE' && rest === '') {
      account.lists.splice(account.lists.indexOf(list), 1);
      return send(204);
    }
    const present = (member: MailchimpMember) => ({
      id: subscriberHash(member.email_address),
      email_address: member.email_address,
      status: member.status,
      merge_fields: member.merge_fields,
      list_id: list!.id,
    });
    if (list && req.method === 'GET' && rest === '/members') {
      return send(200, {
        members: list.members.slice(offset, offset + count).map(present),
        list_id: list.id,
        total_items: list.members.length,
      });
    }
    /** Merge fields of the body the list defines (else the Mailchimp validation error). */
    const checkFields = (fields: Record<string, unknown> | undefined): string | null => {
      for (const tag of Object.keys(fields ?? {}))
        if (!list!.mergeFields.some((f) => f.tag === tag))
          return `Your merge fields were invalid: ${tag} is not a merge field of this audience.`;
      return null;
    };
    m = /^\/members\/([0-9a-f]{32})$/.exec(rest);
    if (list && m && (req.method === 'PATCH' || req.method === 'PUT')) {
      const member = list.members.find((x) => subscriberHash(x.email_address) === m![1]);
      if (!member && req.method === 'PATCH') return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
      const email = member?.email_address ?? String(body?.email_address ?? '');
      if (req.method === 'PUT' && (!body?.email_address || subscriberHash(body.email_address) !== m[1]))
        return problem(400, 'Invalid Resource', 'The email address does not match the subscriber hash.');
      if (s.rejectEmails.has(email.toLowerCase()))
        return problem(400, 'Invalid Resource', `${email} looks fake or invalid, please enter a real email address.`);
      const invalid = checkFields(body?.merge_fields);
      if (invalid) return problem(400, 'Invalid Resource', invalid);
      if (member) {
        Object.assign(member.merge_fields, body?.merge_fields ?? {});
        if (body?.status) member.status = body.status;
        return send(200, present(member));
      }
      const created: MailchimpMember = {
        email_address: email,
        status: body.status_if_new ?? body.status ?? 'subscribed',
        merge_fields: { ...(body.merge_fields ?? {}) },
      };
      list.members.push(created);
      return send(200, present(created));
    }
    if (list && req.method === 'POST' && rest === '') {
      const members = (body?.members ?? []) as {
        email_address: string;
        status: MailchimpMember['status'];
        merge_fields?: Record<string, unknown>;
      }[];
      if (!Array.isArray(members) || members.length > 500) return problem(400, 'Invalid Resource', 'members must hold at most 500 items.');
      const result = {
        new_members: [] as unknown[],
        updated_members: [] as unknown[],
        errors: [] as unknown[],
        total_created: 0,
        total_updated: 0,
        error_count: 0,
      };
      for (const input of members) {
        const email = String(input.email_address ?? '');
        const invalid = !email.includes('@')
          ? `${email} is not a valid email address.`
          : s.rejectEmails.has(email.toLowerCase())
            ? `${email} looks fake or invalid, please enter a real email address.`
            : checkFields(input.merge_fields);
        if (invalid) {
          result.errors.push({
            email_address: email,
            error: invalid,
            error_code: 'ERROR_GENERIC',
            field: 'email_address',
            field_message: invalid,
          });
          continue;
        }
        const member = list.members.find((x) => x.email_address.toLowerCase() === email.toLowerCase());
        if (member && !body.update_existing) {
          result.errors.push({ email_address: email, error: `${email} is already a list member.`, error_code: 'ERROR_CONTACT_EXISTS' });
        } else if (member) {
          Object.assign(member.merge_fields, input.merge_fields ?? {});
          result.updated_members.push(present(member));
        } else {
          const created: MailchimpMember = { email_address: email, status: input.status, merge_fields: { ...(input.merge_fields ?? {}) } };
          list.members.push(created);
          result.new_members.push(present(created));
        }
      }
      result.total_created = result.new_members.length;
      result.total_updated = result.updated_members.length;
      result.error_count = result.errors.length;
      return send(200, result);
    }
    if (list && req.method === 'GET' && rest === '/merge-fields') {
      return send(200, {
        merge_fields: list.mergeFields.slice(offset, offset + count).map((f) => ({ ...f, list_id: list.id })),
        list_id: list.id,
        total_items: list.mergeFields.length,
      });
    }
    if (list && req.method === 'POST' && rest === '/merge-fields') {
      if (!body?.name || !body.type) return problem(400, 'Invalid Resource', 'The resource submitted could not be validated.');
      const tag = String(body.tag ?? '').toUpperCase();
      if (!/^[A-Z0-9_]{1,10}$/.test(tag))
        return problem(400, 'Invalid Resource', 'The merge tag must be 1 to 10 letters, digits or underscores.');
      if (list.mergeFields.some((f) => f.tag === tag))
        return problem(400, 'Invalid Resource', `A Merge Field with the tag "${tag}" already exists for this list.`);
      const field = { merge_id: nextField++, tag, name: String(body.name), type: String(body.type) };
      list.mergeFields.push(field);
      return send(200, { ...field, list_id: list.id });
    }
    m = /^\/merge-fields\/(\d+)$/.exec(rest);
    if (list && m && req.method === 'DELETE') {
      if (s.failMergeFieldDeletes) return problem(500, 'Internal Server Error', 'An unexpected internal error has occurred.');
      const field = list.mergeFields.find((f) => f.merge_id === Number(m![1]));
      if (!field) return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
      list.mergeFields.splice(list.mergeFields.indexOf(field), 1);
      for (const member of list.members) delete member.merge_fields[field.tag];
      return send(204);
    }
    return problem(404, 'Resource Not Found', `The requested resource could not be found: ${req.method} ${url.pathname}`);
  });
  const url = loopback.url;
  Object.assign(s, {
    url,
    clientId: '123456789012',
    clientSecret: 'test-mailchimp-secret',
    redirectUri: 'https://console.example.com/connections/mailchimp',
    rejectEmails: new Set<string>(),
    failMergeFieldDeletes: false,
    log: [],
    addAccount(name: string, members: Omit<MailchimpMember, 'status'>[]) {
      // Account ids differ between stand-ins: tests of several files share one control plane.
      const accountId = hex(12);
      accounts.set(accountId, {
        accountId,
        name,
        dc: 'us19',
        lists: [
          {
            id: hex(5),
            name: `${name} audience`,
            mergeFields: DEFAULT_FIELDS.map((f) => ({ ...f })),
            members: members.map((p) => ({ ...p, status: 'subscribed' as const, merge_fields: { ...p.merge_fields } })),
          },
        ],
      });
      return accountId;
    },
    account: (accountId: string) => accounts.get(accountId)!,
    approve(accountId: string) {
      const code = hex(16);
      codes.set(code, accountId);
      return code;
    },
    revokeTokens() {
      for (const g of tokens.values()) g.valid = false;
    },
    rateLimitNext(n: number) {
      limited = n;
    },
    close: loopback.close,
  } satisfies Partial<MailchimpStandIn>);
  return s;
}

/** The Mailchimp settings that point the service at the stand-in (login host and API host are both the stand-in). */
export const mailchimpSettings = (m: MailchimpStandIn) => ({
  clientId: m.clientId,
  clientSecret: m.clientSecret,
  redirectUri: m.redirectUri,
  loginUrl: m.url,
  apiEndpointTemplate: m.url,
});
