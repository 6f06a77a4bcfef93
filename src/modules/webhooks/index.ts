import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { createDispatcher } from './dispatcher.ts';
import { createEventService } from './events.ts';
import { createWebhookService } from './service.ts';
import { targetPolicy } from './url-policy.ts';

/** Wires the webhooks area: `events` for emitters, `webhooks` for the routes, `dispatcher` for the worker. */
export function createWebhookModule(deps: { config: Config; database: Database; queue: JobQueue; clock: Clock }) {
  const { config, queue, clock } = deps;
  const db = deps.database.db;
  // Read per use, so a test or an operator can see the policy of the config the app was built with.
  const policy = () => targetPolicy(config);
  return {
    events: createEventService({ db, queue, clock, policy }),
    webhooks: createWebhookService({ db, queue, clock, policy }),
    webhookDispatcher: createDispatcher({
      db, queue, clock, policy, settings: config.webhooks, userAgent: `AudienceDataService-Webhooks/1.0 (+${config.publicUrl})`,
    }),
  };
}

export type { EventService, EmitInput, EmittedEvent } from './events.ts';
export { EVENT_TYPES, type EventType } from './types.ts';
