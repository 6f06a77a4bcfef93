/**
 * Pages the library renders itself (device code entry, confirmation, success, errors), drawn with our
 * layout. They set the same security headers as our own pages.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { html, PAGE_CSP } from '../pages/html.ts';
import { devicePage, messagePage } from '../pages/views.ts';

type Ctx = KoaContextWithOIDC;

function send(ctx: Ctx, body: string): void {
  ctx.type = 'html';
  ctx.set('content-security-policy', PAGE_CSP);
  ctx.set('x-frame-options', 'DENY');
  ctx.set('cache-control', 'no-store');
  ctx.body = body;
}

function inputError(err: unknown): string | null {
  if (!err) return null;
  const name = (err as { name?: string }).name;
  if ((err as { userCode?: string }).userCode || name === 'NoCodeError')
    return 'That code is not valid. Check the code your device shows and try again.';
  if (name === 'AbortedError') return 'The sign-in was cancelled.';
  return 'Something went wrong; enter the code again.';
}

export const providerPages = {
  async deviceInput(ctx: Ctx, form: string, _out: unknown, err: unknown) {
    send(
      ctx,
      devicePage({
        title: 'Connect a device',
        intro: 'Enter the code your device or agent shows.',
        form,
        buttons: html`<button type="submit" form="op.deviceInputForm">Continue</button>`,
        error: inputError(err),
      }),
    );
  },

  async deviceConfirm(ctx: Ctx, form: string, client: { clientName?: string; clientId: string }, _deviceInfo: unknown, userCode: string) {
    send(
      ctx,
      devicePage({
        title: 'Confirm the device',
        intro: html`<strong>${client.clientName ?? client.clientId}</strong> wants to connect. Continue only if your device shows the code <code>${userCode}</code>.`,
        form,
        buttons: html`<button type="submit" form="op.deviceConfirmForm">Continue</button>
<button type="submit" form="op.deviceConfirmForm" name="abort" value="yes" class="secondary">Cancel</button>`,
      }),
    );
  },

  async deviceSuccess(ctx: Ctx) {
    const name = ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId ?? 'The device';
    send(ctx, messagePage('Device connected', `${name} is connected. You can close this page.`));
  },

  async renderError(ctx: Ctx, out: { error?: string; error_description?: string }) {
    send(
      ctx,
      messagePage(
        'This request cannot continue',
        out.error_description ?? 'The request is not valid.',
        out.error ? `Error: ${out.error}` : null,
      ),
    );
  },
};

export type ProviderPages = typeof providerPages;
