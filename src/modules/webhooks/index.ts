import type { Config } from '../../config/index.ts';
import type { Database } from '../../db/database.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ServerKeys } from '../../db/server-secrets.ts';
import type { Resolver } from '../../lib/outbound/index.ts';
import { createSecretBox } from './secret-box.ts';
import { createDispatcher } from './dispatcher.ts';
import { createEventService } from './events.ts';
import { webhookOperations } from './operations.ts';
import { createWebhookService } from './service.ts';
import { targetPolicy } from './url-policy.ts';

/** Wires the webhooks area: `events` for emitters (inside their transaction), the operations, the dispatcher for the worker. */
export function createWebhookModule(deps: {
  config: Config;
  database: Database;
  queue: JobQueue;
  clock: Clock;
  keys: Pick<ServerKeys, 'secret'>;
  resolver?: Resolver;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}) {
  const { config, queue, clock } = deps;
  const db = deps.database.db;
  // Read per use, so a test or an operator can see the policy of the config the app was built with.
  const policy = () => ({ ...targetPolicy(config), resolve: deps.resolver });
  const box = createSecretBox(db, deps.keys);
  const webhooks = createWebhookService({ db, queue, clock, policy, box });
  return {
    events: createEventService({ db, queue, clock, policy, box }),
    webhooks,
    operations: webhookOperations({ webhooks }),
    webhookDispatcher: createDispatcher({
      db,
      queue,
      clock,
      policy,
      box,
      settings: config.webhooks,
      userAgent: `AudienceDataService-Webhooks/1.0 (+${config.publicUrl})`,
      log: deps.log,
    }),
  };
}

export type { EventService, EmitInput, EmittedEvent } from './events.ts';
export { EVENT_TYPES, type EventType } from './types.ts';
export { checkTargetUrl, isPrivateAddress, targetPolicy, type TargetPolicy } from './url-policy.ts';
export { webhookDocs } from './event-schemas.ts';
