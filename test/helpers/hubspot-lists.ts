/**
 * The list and upsert routes of the HubSpot stand-in (CRM API v3), in HubSpot's shapes:
 *   POST   /crm/v3/lists {name, objectTypeId, processingType}      -> 200 {list: {listId, name, processingType, objectTypeId, ...}}
 *                                                                     (400 when the name is taken or a field is missing)
 *   PUT    /crm/v3/lists/{listId}/memberships/add [recordId, ...]  -> 200 {recordIdsAdded, recordIdsMissing}
 *   GET    /crm/v3/lists/{listId}/memberships                      -> 200 {results: [{recordId, membershipTimestamp}], total}
 *   DELETE /crm/v3/lists/{listId}                                  -> 204 (404 when unknown)
 *   POST   /crm/v3/objects/contacts/batch/upsert {inputs: [{idProperty: 'email', id, properties}]}
 *          -> 200 {status, results: [{id, properties, new}]}, or 207 with errors (context.ids: the refused emails)
 */
import type { HubSpotContact } from './hubspot-server.ts';

export interface HubSpotList {
  listId: string;
  name: string;
  processingType: string;
  objectTypeId: string;
  members: string[];
}

export interface ListRouteContext {
  method: string;
  path: string;
  raw: string;
  hub: { contacts: HubSpotContact[]; properties: Set<string>; lists?: HubSpotList[] };
  send(status: number, body?: unknown): void;
  error(category: string, message: string): unknown;
  /** Contact ids whose writes HubSpot refuses (the stand-in's rejectIds). */
  rejectIds: Set<string>;
  newContactId(): string;
  newListId(): string;
}

const STANDARD = ['firstname', 'lastname', 'email'];

/** Answers a list or upsert request; false when the route is not one of these. */
export function hubspotListRoute(c: ListRouteContext): boolean {
  const lists = (c.hub.lists ??= []);
  if (c.method === 'POST' && c.path === '/crm/v3/lists') {
    const body = JSON.parse(c.raw || '{}') as { name?: string; objectTypeId?: string; processingType?: string };
    if (!body.name || !body.objectTypeId || !body.processingType)
      return (c.send(400, c.error('VALIDATION_ERROR', 'name, objectTypeId and processingType are required')), true);
    if (!['MANUAL', 'DYNAMIC', 'SNAPSHOT'].includes(body.processingType))
      return (c.send(400, c.error('VALIDATION_ERROR', `Unknown processingType ${body.processingType}`)), true);
    if (lists.some((l) => l.name === body.name))
      return (c.send(400, c.error('VALIDATION_ERROR', `A list named ${body.name} already exists.`)), true);
    const list: HubSpotList = {
      listId: c.newListId(),
      name: body.name,
      processingType: body.processingType,
      objectTypeId: body.objectTypeId,
      members: [],
    };
    lists.push(list);
    const now = new Date().toISOString();
    c.send(200, {
      list: {
        listId: list.listId,
        listVersion: 1,
        name: list.name,
        processingType: list.processingType,
        objectTypeId: list.objectTypeId,
        createdAt: now,
        updatedAt: now,
        size: 0,
      },
    });
    return true;
  }
  const m = /^\/crm\/v3\/lists\/([^/]+)(\/memberships(?:\/add)?)?$/.exec(c.path);
  if (m) {
    const list = lists.find((l) => l.listId === m[1]);
    if (!list) return (c.send(404, c.error('OBJECT_NOT_FOUND', `List ${m[1]} does not exist.`)), true);
    if (c.method === 'DELETE' && !m[2]) {
      lists.splice(lists.indexOf(list), 1);
      return (c.send(204), true);
    }
    if (c.method === 'GET' && m[2] === '/memberships') {
      return (
        c.send(200, {
          results: list.members.map((recordId) => ({ recordId, membershipTimestamp: '2026-11-24T00:00:00.000Z' })),
          total: list.members.length,
        }),
        true
      );
    }
    if (c.method === 'PUT' && m[2] === '/memberships/add') {
      if (list.processingType !== 'MANUAL' && list.processingType !== 'SNAPSHOT')
        return (c.send(400, c.error('VALIDATION_ERROR', 'Only MANUAL and SNAPSHOT lists take memberships.')), true);
      const ids = (JSON.parse(c.raw || '[]') as unknown[]).map(String);
      const added: string[] = [];
      const missing: string[] = [];
      for (const id of ids) {
        if (!c.hub.contacts.some((x) => x.id === id)) missing.push(id);
        else if (!list.members.includes(id)) {
          list.members.push(id);
          added.push(id);
        }
      }
      return (c.send(200, { recordIdsAdded: added, recordIdsMissing: missing }), true);
    }
    return false;
  }
  if (c.method === 'POST' && c.path === '/crm/v3/objects/contacts/batch/upsert') {
    const { inputs } = JSON.parse(c.raw || '{}') as { inputs?: { idProperty: string; id: string; properties: Record<string, string> }[] };
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > 100)
      return (c.send(400, c.error('VALIDATION_ERROR', 'inputs must hold 1 to 100 objects')), true);
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const input of inputs) {
      if (input.idProperty !== 'email') {
        errors.push({
          status: 'error',
          category: 'VALIDATION_ERROR',
          message: `${input.idProperty} is not a unique property`,
          context: { ids: [input.id] },
        });
        continue;
      }
      const email = String(input.id).toLowerCase();
      const existing = c.hub.contacts.find((x) => String(x.properties.email ?? '').toLowerCase() === email);
      const unknown = Object.keys(input.properties ?? {}).find((p) => !c.hub.properties.has(p) && !STANDARD.includes(p));
      if (unknown)
        errors.push({
          status: 'error',
          category: 'VALIDATION_ERROR',
          message: `Property "${unknown}" does not exist`,
          context: { ids: [input.id] },
        });
      else if (existing && c.rejectIds.has(existing.id))
        errors.push({
          status: 'error',
          category: 'VALIDATION_ERROR',
          message: 'Contact is locked by a workflow',
          context: { ids: [input.id] },
        });
      else {
        const contact = existing ?? { id: c.newContactId(), properties: { email: input.id } };
        if (!existing) c.hub.contacts.push(contact);
        Object.assign(contact.properties, input.properties);
        results.push({
          id: contact.id,
          properties: contact.properties,
          new: !existing,
          createdAt: '2026-01-05T10:00:00.000Z',
          updatedAt: new Date().toISOString(),
          archived: false,
        });
      }
    }
    const body = { status: 'COMPLETE', results, startedAt: new Date().toISOString(), completedAt: new Date().toISOString() };
    c.send(errors.length ? 207 : 200, errors.length ? { ...body, numErrors: errors.length, errors } : body);
    return true;
  }
  return false;
}
