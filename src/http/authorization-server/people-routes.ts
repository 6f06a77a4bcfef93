/** Invitation links (choose a password, which verifies the email) and the development mail outbox. */
import type { FastifyInstance } from 'fastify';
import { isDomainError } from '../../core/errors.ts';
import type { OAuthModule } from '../../modules/oauth/index.ts';
import { csrfToken, csrfValid, invitationPath, oauthPages, sameOrigin } from '../../modules/oauth/index.ts';
import { sendPage, type FormBody } from './page-reply.ts';

type Params = { token: string };

export function registerPeopleRoutes(app: FastifyInstance, oauth: OAuthModule, options: { production: boolean }): void {
  const { people, keys, settings, mailer } = oauth;
  const path = invitationPath(':token');
  const gone = () =>
    oauthPages.messagePage(
      'This invitation is no longer open',
      'It was used already or has expired. Ask an owner or admin of your organization to invite you again.',
    );

  app.get<{ Params: Params }>(path, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const open = await people.findOpenInvitation(request.params.token);
    if (!open) return sendPage(reply, gone(), 404);
    return sendPage(
      reply,
      oauthPages.invitationPage({
        action: invitationPath(request.params.token),
        csrf: csrfToken(keys.csrfKey, 'invitation', request.params.token),
        email: open.user.email,
        organization: open.organization,
      }),
    );
  });

  app.post<{ Params: Params; Body: FormBody }>(path, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const { token } = request.params;
    if (!sameOrigin(request.headers, settings.issuer) || !csrfValid(keys.csrfKey, 'invitation', token, request.body?.csrf)) {
      return sendPage(reply, oauthPages.messagePage('This form has expired', 'Open the invitation link again.'), 403);
    }
    const open = await people.findOpenInvitation(token);
    if (!open) return sendPage(reply, gone(), 404);
    const password = String(request.body.password ?? '');
    const again = (error: string) =>
      sendPage(
        reply,
        oauthPages.invitationPage({
          action: invitationPath(token),
          csrf: csrfToken(keys.csrfKey, 'invitation', token),
          email: open.user.email,
          organization: open.organization,
          error,
        }),
        400,
      );
    if (password !== String(request.body.confirm ?? '')) return again('The two passwords differ.');
    try {
      await people.acceptInvitation(token, password);
    } catch (error) {
      if (isDomainError(error)) return again(error.message);
      throw error;
    }
    return sendPage(
      reply,
      oauthPages.messagePage(
        'You are in',
        `Your password is set and ${open.user.email} is verified. You can now sign in when an application asks you to connect.`,
      ),
    );
  });

  if (!options.production) {
    // Development only, and only to this machine: the outbox holds live invitation links.
    app.get('/dev/outbox', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
      if (!['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(request.socket.remoteAddress ?? '')) {
        return sendPage(reply, oauthPages.messagePage('Not found', 'The outbox is shown only on the machine that runs the service.'), 404);
      }
      const rows = await mailer.recent();
      return sendPage(
        reply,
        oauthPages.outboxPage(
          rows.map((r) => ({
            to: r.to_address,
            subject: r.subject,
            text: r.text_body,
            createdAt: new Date(r.created_at),
            sent: !!r.sent_at,
          })),
        ),
      );
    });
  }
}
