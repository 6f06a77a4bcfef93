import type { FastifyInstance } from 'fastify';
import type { AuthService, Principal } from '../modules/auth/service.ts';
import type { Scope } from '../modules/auth/scopes.ts';
import { Errors } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route requires (`authenticated`: any valid bearer); routes without one must be `public`. */
    scope?: Scope | 'authenticated';
    /** No bearer needed (token exchange, health, docs, signed upload URLs). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/**
 * Authentication and scope checks run before the body is read, from the route's config:
 * `{ scope: 'discovery' }` or `{ public: true }`. Every /v1 route must say which, checked when the
 * route is registered, so a forgotten scope fails at start rather than opening a route.
 */
export function registerAuth(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { scope?: string; public?: boolean };
    if (route.url.startsWith('/v1/') && !config.scope && !config.public) {
      throw new Error(`Route ${route.method} ${route.url} declares neither a scope nor public: true`);
    }
  });
  // Callback style: this runs on every request and does no I/O.
  app.addHook('onRequest', (request, _reply, done) => {
    const config = request.routeOptions.config;
    if (!config.scope) return done(); // public routes, docs, and unknown routes (which get their 404)
    try {
      const principal = auth.authenticate(request.headers.authorization);
      if (config.scope !== 'authenticated') auth.authorize(principal, config.scope);
      request.principal = principal;
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}

/** The caller of an authenticated route (set by the auth hook). */
export function principalOf(request: { principal: Principal | null }): Principal {
  if (!request.principal) throw Errors.tokenInvalid();
  return request.principal;
}
