/**
 * The OAuth HTTP surface: the authorization server's protocol endpoints, RFC 9728 resource metadata,
 * userinfo, and the pages (sign-in, consent, invitations, the development outbox).
 */
import type { FastifyInstance } from 'fastify';
import type { OAuthModule } from '../../modules/oauth/index.ts';
import { registerInteractionRoutes } from './interaction-routes.ts';
import { registerFormParser } from './page-reply.ts';
import { registerPeopleRoutes } from './people-routes.ts';
import { registerProviderRoutes } from './provider-routes.ts';
import { registerResourceRoutes } from './resource-routes.ts';

export async function registerOAuth(app: FastifyInstance, oauth: OAuthModule, options: { production: boolean }): Promise<void> {
  await registerProviderRoutes(app, oauth);
  await app.register(async (scope) => {
    registerFormParser(scope);
    registerResourceRoutes(scope, oauth);
    registerInteractionRoutes(scope, oauth);
    registerPeopleRoutes(scope, oauth, options);
  });
}
