import type { FastifyInstance } from 'fastify';
import type { Caller } from '../core/caller.ts';
import type { Access } from '../core/operation.ts';
import { CommonErrors, isDomainError, type DomainError } from '../core/errors.ts';
import { hasScope } from '../core/scopes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route: a scope, any valid bearer (`authenticated`), or anyone (`public`). */
    access?: Access;
  }
  interface FastifyRequest {
    principal: Caller | null;
  }
}

/**
 * Turns an Authorization header into a caller, or throws TOKEN_INVALID / TOKEN_EXPIRED. API-key bearers
 * answer synchronously (no I/O); OAuth access tokens are looked up, so the answer may be a promise.
 */
export type Authenticate = (authorization: string | undefined) => Caller | Promise<Caller>;

export interface AuthOptions {
  /**
   * The `WWW-Authenticate` value of a refusal (401 token errors, 403 missing scope), e.g. naming the
   * resource's RFC 9728 metadata; null sends none.
   */
  challenge?: (error: DomainError, authorization: string | undefined) => string | null;
}

/**
 * Authentication and scope checks run before the body is read, from the route's declared access.
 * Every /v1 route must declare one, checked when the route is registered, so a forgotten access fails
 * at start rather than opening a route.
 */
export function registerAuth(app: FastifyInstance, authenticate: Authenticate, options: AuthOptions = {}): void {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    const access = (route.config as { access?: Access } | undefined)?.access;
    if (route.url.startsWith('/v1/') && !access) {
      throw new Error(`Route ${route.method} ${route.url} declares no access (a scope, 'authenticated' or 'public')`);
    }
  });
  // Callback style: API-key bearers are checked without I/O and stay synchronous.
  app.addHook('onRequest', (request, reply, done) => {
    const access = request.routeOptions.config.access;
    if (!access || access === 'public') return done(); // public routes, docs, and unknown routes (which get their 404)
    const authorization = request.headers.authorization;
    const fail = (error: unknown) => {
      const challenge = options.challenge && isDomainError(error) ? options.challenge(error, authorization) : null;
      if (challenge) reply.header('www-authenticate', challenge);
      done(error as Error);
    };
    const accept = (caller: Caller) => {
      if (access !== 'authenticated' && !hasScope(caller.scopes, access)) return fail(CommonErrors.scopeRequired(access));
      request.principal = caller;
      done();
    };
    try {
      const result = authenticate(authorization);
      if (result instanceof Promise) result.then(accept, fail);
      else accept(result);
    } catch (error) {
      fail(error);
    }
  });
}
