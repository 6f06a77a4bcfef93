/**
 * The sign-in and consent pages of an authorization (browser or device flow). The login form posts
 * `email` and `password`; the consent form has one `scope` checkbox per requested scope and the buttons
 * `approve` and `deny`, so a browser or a script can drive it (spec 5.5). Every form carries a CSRF token.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionResults } from 'oidc-provider';
import type { OAuthModule } from '../../modules/oauth/index.ts';
import { cookieValue, csrfToken, csrfValid, interactionPath, oauthPages, sameOrigin } from '../../modules/oauth/index.ts';
import { sendPage, type FormBody } from './page-reply.ts';

type Params = { uid: string };

export function registerInteractionRoutes(app: FastifyInstance, oauth: OAuthModule): void {
  const { provider, interactions, keys, settings } = oauth;
  const path = interactionPath(':uid');

  /** CSRF binding: the interaction id and the signature half of its cookie (unknowable to another site). */
  const binding = (request: FastifyRequest, uid: string) => `${uid}:${cookieValue(request.headers.cookie, 'ads_interaction.sig') ?? ''}`;
  const token = (request: FastifyRequest, uid: string, purpose: string) => csrfToken(keys.csrfKey, purpose, binding(request, uid));

  async function details(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
    try {
      const found = await provider.interactionDetails(request.raw, reply.raw);
      return found.uid === request.params.uid ? found : null;
    } catch {
      return null;
    }
  }

  const expired = (reply: FastifyReply) =>
    sendPage(reply, oauthPages.messagePage('This sign-in has expired', 'Go back to the application and connect again.'), 400);

  async function finish(request: FastifyRequest, reply: FastifyReply, result: InteractionResults) {
    const returnTo = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: true });
    return reply.redirect(returnTo, 303);
  }

  async function renderLogin(
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    clientId: string,
    error: string | null,
    email?: string,
  ) {
    const uid = request.params.uid;
    return sendPage(
      reply,
      oauthPages.loginPage({
        action: `${interactionPath(uid)}/login`,
        csrf: token(request, uid, 'login'),
        client: await interactions.clientView(clientId),
        email,
        error,
      }),
      error ? 401 : 200,
    );
  }

  app.get<{ Params: Params }>(path, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const found = await details(request, reply);
    if (!found) return expired(reply);
    const clientId = String(found.params.client_id);
    if (found.prompt.name === 'login') return renderLogin(request, reply, clientId, null);
    const model = await interactions.consentModel(found.params, String(found.session?.accountId));
    if (!model)
      return finish(request, reply, { error: 'login_required', error_description: 'the signed-in person is no longer an active member' });
    const uid = request.params.uid;
    return sendPage(
      reply,
      oauthPages.consentPage({ action: `${interactionPath(uid)}/consent`, csrf: token(request, uid, 'consent'), ...model }),
    );
  });

  /** Checks origin, CSRF and the interaction; answers the refusal itself and returns null when one fails. */
  async function guarded(
    request: FastifyRequest<{ Params: Params; Body: FormBody }>,
    reply: FastifyReply,
    purpose: string,
    submitted = request.body?.csrf,
  ) {
    const found = await details(request, reply);
    if (!found) {
      expired(reply);
      return null;
    }
    if (
      !sameOrigin(request.headers, settings.issuer) ||
      !csrfValid(keys.csrfKey, purpose, binding(request, request.params.uid), submitted)
    ) {
      sendPage(reply, oauthPages.messagePage('This form has expired', 'Reload the page and try again.'), 403);
      return null;
    }
    return found;
  }

  app.post<{ Params: Params; Body: FormBody }>(
    `${path}/login`,
    { config: { access: 'public' }, schema: { hide: true } },
    async (request, reply) => {
      const found = await guarded(request, reply, 'login');
      if (!found) return reply;
      const email = String(request.body.email ?? '').slice(0, 254);
      const password = String(request.body.password ?? '').slice(0, 200);
      const accounts = email && password ? await interactions.signIn(email, password) : [];
      const clientId = String(found.params.client_id);
      if (accounts.length === 0)
        return renderLogin(request, reply, clientId, 'The email or password is not right, or the account is not active.', email);
      if (accounts.length === 1) return finish(request, reply, { login: { accountId: accounts[0]!.userId } });
      const uid = request.params.uid;
      const ids = accounts.map((a) => a.userId).join(',');
      return sendPage(
        reply,
        oauthPages.chooseAccountPage({
          action: `${interactionPath(uid)}/account`,
          csrf: `${ids}.${token(request, uid, `account:${ids}`)}`,
          accounts,
        }),
      );
    },
  );

  app.post<{ Params: Params; Body: FormBody }>(
    `${path}/account`,
    { config: { access: 'public' }, schema: { hide: true } },
    async (request, reply) => {
      // The CSRF field carries the accounts the password matched, signed: the choice must be one of them.
      const [ids = '', mac = ''] = String(request.body?.csrf ?? '').split('.');
      const found = await guarded(request, reply, `account:${ids}`, mac);
      if (!found) return reply;
      const chosen = String(request.body.account ?? '');
      if (!ids.split(',').includes(chosen)) return expired(reply);
      return finish(request, reply, { login: { accountId: chosen } });
    },
  );

  app.post<{ Params: Params; Body: FormBody }>(
    `${path}/consent`,
    { config: { access: 'public' }, schema: { hide: true } },
    async (request, reply) => {
      const found = await guarded(request, reply, 'consent');
      if (!found) return reply;
      const denied = { error: 'access_denied', error_description: 'the person denied the request' };
      if (request.body.deny !== undefined || request.body.approve === undefined) return finish(request, reply, denied);
      const model = await interactions.consentModel(found.params, String(found.session?.accountId));
      if (!model)
        return finish(request, reply, { error: 'login_required', error_description: 'the signed-in person is no longer an active member' });
      const chosen = ([] as string[]).concat(request.body.scope ?? []);
      const grantId = await interactions.approve({
        model,
        clientId: String(found.params.client_id),
        existingGrantId: found.grantId,
        chosen,
      });
      if (!grantId) return finish(request, reply, { error: 'access_denied', error_description: 'no scope was approved' });
      return finish(request, reply, { consent: { grantId } });
    },
  );
}
