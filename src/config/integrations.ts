/**
 * Outbound integration providers. A provider is offered only when its OAuth app is configured:
 * HUBSPOT_CLIENT_ID, HUBSPOT_CLIENT_SECRET and HUBSPOT_REDIRECT_URI (the page of the console that
 * receives HubSpot's redirect and finishes the connection with POST /v1/connections/hubspot).
 * HUBSPOT_API_BASE_URL and HUBSPOT_AUTHORIZE_URL default to HubSpot's own hosts (a loopback stand-in
 * in tests and `ads dev`). Mailchimp likewise: MAILCHIMP_CLIENT_ID, MAILCHIMP_CLIENT_SECRET,
 * MAILCHIMP_REDIRECT_URI; MAILCHIMP_LOGIN_URL (https://login.mailchimp.com) and MAILCHIMP_API_ENDPOINT_TEMPLATE
 * (https://{dc}.api.mailchimp.com: the API host of the account's data center) for a stand-in.
 */
import { intSetting } from './settings.ts';

export interface IntegrationSettings {
  hubspot: { clientId: string; clientSecret: string; redirectUri: string; apiBaseUrl: string; authorizeUrl: string } | null;
  mailchimp?: { clientId: string; clientSecret: string; redirectUri: string; loginUrl: string; apiEndpointTemplate: string } | null;
  /** Most contacts one batch-enrichment run reads (INTEGRATION_RUN_MAX_CONTACTS, default 10000). */
  maxContactsPerRun: number;
  /** Longest Retry-After honoured on a provider's 429 (INTEGRATION_MAX_RETRY_AFTER_SECONDS, default 10). */
  maxRetryAfterSeconds: number;
  /** Folder of file_enrichment files (INTEGRATION_FILES_DIR, default DATA_DIR/integration-runs). */
  filesDir?: string | null;
}

export function integrationSettings(env: NodeJS.ProcessEnv, publicUrl: string): IntegrationSettings {
  const id = env.HUBSPOT_CLIENT_ID;
  const secret = env.HUBSPOT_CLIENT_SECRET;
  return {
    hubspot:
      id && secret
        ? {
            clientId: id,
            clientSecret: secret,
            redirectUri: env.HUBSPOT_REDIRECT_URI ?? `${publicUrl}/console/connections/hubspot`,
            apiBaseUrl: env.HUBSPOT_API_BASE_URL ?? 'https://api.hubapi.com',
            authorizeUrl: env.HUBSPOT_AUTHORIZE_URL ?? 'https://app.hubspot.com/oauth/authorize',
          }
        : null,
    mailchimp:
      env.MAILCHIMP_CLIENT_ID && env.MAILCHIMP_CLIENT_SECRET
        ? {
            clientId: env.MAILCHIMP_CLIENT_ID,
            clientSecret: env.MAILCHIMP_CLIENT_SECRET,
            redirectUri: env.MAILCHIMP_REDIRECT_URI ?? `${publicUrl}/console/connections/mailchimp`,
            loginUrl: env.MAILCHIMP_LOGIN_URL ?? 'https://login.mailchimp.com',
            apiEndpointTemplate: env.MAILCHIMP_API_ENDPOINT_TEMPLATE ?? 'https://{dc}.api.mailchimp.com',
          }
        : null,
    maxContactsPerRun: intSetting(env, 'INTEGRATION_RUN_MAX_CONTACTS', 10_000, 1, 1_000_000),
    maxRetryAfterSeconds: intSetting(env, 'INTEGRATION_MAX_RETRY_AFTER_SECONDS', 10, 0, 600),
    filesDir: env.INTEGRATION_FILES_DIR || null,
  };
}
