import type { Services } from '../services.ts';
import type { JobDefinition } from './worker.ts';

/** Every job kind of the service. Each module contributes its definitions here. */
export function jobDefinitions(services: Services): JobDefinition[] {
  return [services.webhookDispatcher.definition, ...services.segmentsModule.jobDefinitions(), ...services.fileMatch.jobDefinitions()];
}
