/**
 * JSON bodies. An empty body with Content-Type: application/json reads as no body (spec 4.5 allows
 * POST /v1/match/file with an empty body); operations whose schema requires a body then answer 400
 * with the envelope. Anything else must be well-formed JSON.
 */
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../core/errors.ts';

export function registerBodyParsing(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(new DomainError('INVALID_JSON', `The request body is not valid JSON: ${(error as Error).message}`, {
        nextStep: 'Send a well-formed JSON body with Content-Type: application/json.',
      }), undefined);
    }
  });
}
