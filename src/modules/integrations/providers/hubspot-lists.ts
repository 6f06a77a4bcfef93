/**
 * HubSpot lists for activation runs (CRM API v3, Lists):
 *   create       POST /crm/v3/lists {name, objectTypeId: '0-1', processingType: 'MANUAL'} -> {list: {listId, ...}}
 *   upsert       POST /crm/v3/objects/contacts/batch/upsert {inputs: [{idProperty: 'email', id, properties}]}
 *                -> 200 {results: [{id, properties, new}]}, or 207 with errors (context.ids: the emails refused)
 *   add members  PUT  /crm/v3/lists/{listId}/memberships/add [recordId, ...] -> {recordIdsAdded, recordIdsMissing}
 *   delete       DELETE /crm/v3/lists/{listId} -> 204
 * A record neither added nor missing was already a member (`unchanged`).
 */
import type { ProviderCall, ProviderResponse } from './http.ts';
import { ProviderError, type ListPushResult, type ProviderLists } from './types.ts';

const CONTACT_OBJECT_TYPE = '0-1';

function fail(what: string, res: ProviderResponse): never {
  throw new ProviderError(
    res.status === 401 ? 'unauthorized' : 'failed',
    res.status,
    `HubSpot ${what} answered ${res.status}: ${String(res.body?.message ?? 'no message').slice(0, 200)}`,
  );
}

export function hubspotLists(api: string, call: ProviderCall): ProviderLists {
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  return {
    pushBatchSize: 100,

    async createList(token, name) {
      const res = await call('POST', `${api}/crm/v3/lists`, {
        headers: auth(token),
        json: { name, objectTypeId: CONTACT_OBJECT_TYPE, processingType: 'MANUAL' },
      });
      if (res.status !== 200 && res.status !== 201) fail('list creation', res);
      return String(res.body.list.listId);
    },

    async addMembers(token, listId, members) {
      const result: ListPushResult = { applied: [], unchanged: [], failed: [] };
      const byEmail = new Map(members.map((m) => [m.email.toLowerCase(), m]));
      const up = await call('POST', `${api}/crm/v3/objects/contacts/batch/upsert`, {
        headers: auth(token),
        json: { inputs: members.map((m) => ({ idProperty: 'email', id: m.email, properties: { ...m.properties, email: m.email } })) },
      });
      if (up.status !== 200 && up.status !== 207) fail('batch upsert', up);
      const refused = new Map<string, string>();
      for (const e of (up.body.errors ?? []) as { message: string; context?: { ids?: string[] } }[]) {
        for (const id of e.context?.ids ?? []) refused.set(String(id).toLowerCase(), String(e.message).slice(0, 200));
      }
      // The contact's HubSpot id by the member's contact id (the upsert answers with the email among the properties).
      const recordOf = new Map<string, string>();
      for (const r of (up.body.results ?? []) as { id: string; properties?: Record<string, string | null> }[]) {
        const member = byEmail.get(String(r.properties?.email ?? '').toLowerCase());
        if (member && !refused.has(member.email.toLowerCase())) recordOf.set(member.contact.id, String(r.id));
      }
      for (const m of members) {
        if (!recordOf.has(m.contact.id))
          result.failed.push({ id: m.contact.id, message: refused.get(m.email.toLowerCase()) ?? "not in the provider's upsert results" });
      }
      if (recordOf.size === 0) return result;
      const add = await call('PUT', `${api}/crm/v3/lists/${encodeURIComponent(listId)}/memberships/add`, {
        headers: auth(token),
        json: [...recordOf.values()],
      });
      if (add.status !== 200) fail('list membership add', add);
      const added = new Set(((add.body.recordIdsAdded ?? []) as unknown[]).map(String));
      const missing = new Set(((add.body.recordIdsMissing ?? []) as unknown[]).map(String));
      for (const [contactId, recordId] of recordOf) {
        if (added.has(recordId)) result.applied.push(contactId);
        else if (missing.has(recordId)) result.failed.push({ id: contactId, message: `record ${recordId} is missing at HubSpot` });
        else result.unchanged.push(contactId);
      }
      return result;
    },

    async deleteList(token, listId) {
      const res = await call('DELETE', `${api}/crm/v3/lists/${encodeURIComponent(listId)}`, { headers: auth(token) });
      if (res.status !== 204 && res.status !== 200 && res.status !== 404) fail(`list ${listId} removal`, res);
    },
  };
}
