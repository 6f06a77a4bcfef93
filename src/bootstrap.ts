import type { Services } from './wiring.ts';

export interface DemoCredentials {
  org_id: string;
  user_id: string;
  raw_key: string;
}

/**
 * On the first start of an empty store, create a demo organization with an owner and one API key
 * with all three scopes, so a newcomer can call the API at once. Returns null when organizations exist.
 */
export async function ensureDemoOrganization(services: Services): Promise<DemoCredentials | null> {
  if ((await services.organizations.countOrganizations()) > 0) return null;
  const org = await services.organizations.createOrganization({ name: 'Demo Organization', tier: 'pilot' });
  const owner = await services.organizations.addUser({ orgId: org.id, email: 'owner@demo.example', role: 'owner' });
  const key = await services.apiKeys.issueKey({
    orgId: org.id,
    userId: owner.id,
    name: 'demo key',
    scopes: ['discovery', 'creator', 'account'],
  });
  return { org_id: org.id, user_id: owner.id, raw_key: key.raw_key };
}

export function demoBanner(demo: DemoCredentials, url: string): string {
  return [
    '',
    '  A demo organization was created. Its API key (all scopes) is shown this once:',
    '',
    `    ${demo.raw_key}`,
    '',
    '  Exchange it for a one-hour bearer token:',
    '',
    `    curl -s -X POST ${url}/v1/auth/token -H 'content-type: application/json' \\`,
    `      -d '{"api_key":"${demo.raw_key}"}'`,
    '',
    `  API docs: ${url}/docs`,
    '',
  ].join('\n');
}
