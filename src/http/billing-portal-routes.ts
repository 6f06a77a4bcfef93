/** The payment-method portal pages (src/modules/billing/portal.ts): GET shows the form, POST saves the card and address. */
import type { FastifyInstance } from 'fastify';
import { isDomainError } from '../core/errors.ts';
import { portalDone, portalGone, portalPage, portalPath, type PortalService } from '../modules/billing/index.ts';
import { registerFormParser, sendPage, type FormBody } from './authorization-server/page-reply.ts';

type Params = { token: string };
const text = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).slice(0, 300);

export async function registerBillingPortal(app: FastifyInstance, portal: PortalService): Promise<void> {
  await app.register(async (scope) => {
    registerFormParser(scope);
    const path = portalPath(':token');
    scope.get<{ Params: Params }>(path, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
      const view = await portal.page(request.params.token);
      return view ? sendPage(reply, portalPage(portalPath(request.params.token), view)) : sendPage(reply, portalGone(), 410);
    });
    scope.post<{ Params: Params; Body: FormBody }>(
      path,
      { config: { access: 'public' }, schema: { hide: true } },
      async (request, reply) => {
        const b = request.body ?? {};
        try {
          const r = await portal.submit(request.params.token, {
            card_number: text(b.card_number),
            name: text(b.name),
            line1: text(b.line1),
            city: text(b.city),
            state: text(b.state),
            postal_code: text(b.postal_code),
            country: text(b.country),
          });
          if (r.ok) return sendPage(reply, portalDone(r.view));
          if (!r.view) return sendPage(reply, portalGone(), 410);
          return sendPage(reply, portalPage(portalPath(request.params.token), r.view, r.error), 400);
        } catch (error) {
          if (isDomainError(error) && error.code === 'PAYMENT_PROVIDER_FAILED') {
            const view = await portal.page(request.params.token);
            return view
              ? sendPage(
                  reply,
                  portalPage(portalPath(request.params.token), view, 'The payment provider is unavailable; try again in a few minutes.'),
                  502,
                )
              : sendPage(reply, portalGone(), 410);
          }
          throw error;
        }
      },
    );
  });
}
