/** The provider registry: one adapter per provider identifier. */
import type { IntegrationSettings } from '../../../config/index.ts';
import type { OutboundPolicy } from '../../../lib/outbound/index.ts';
import { hubspotAdapter } from './hubspot.ts';
import { providerHttp } from './http.ts';
import { mailchimpAdapter } from './mailchimp.ts';
import type { ProviderAdapter } from './types.ts';

export function providerRegistry(settings: IntegrationSettings, policy: OutboundPolicy): Map<string, ProviderAdapter> {
  const call = providerHttp({ policy, maxRetryAfterSeconds: settings.maxRetryAfterSeconds });
  const adapters = new Map<string, ProviderAdapter>();
  if (settings.hubspot) adapters.set('hubspot', hubspotAdapter(settings.hubspot, call));
  if (settings.mailchimp) adapters.set('mailchimp', mailchimpAdapter(settings.mailchimp, call));
  return adapters;
}

export type { ProviderAdapter, ProviderContact, ProviderTokens } from './types.ts';
export { ProviderError } from './types.ts';
