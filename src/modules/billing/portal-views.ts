/** The portal's pages: plain server-rendered HTML, no script, every value escaped. */
import { centsToUsd } from './rates.ts';
import type { PortalView } from './portal.ts';

const esc = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)} · Audience Data Service</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}main{max-width:34rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:10px;box-shadow:0 1px 4px #0002}
label{display:block;margin:.7rem 0 .2rem;font-weight:600}input{width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #aab;border-radius:6px;font-size:1rem}
button{margin-top:1.2rem;padding:.55rem 1.2rem;font-size:1rem;border-radius:6px;border:1px solid #2b4acb;background:#2b4acb;color:#fff}
.error{background:#fde8e8;color:#8a1c1c;padding:.6rem .8rem;border-radius:6px}table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{text-align:left;border-bottom:1px solid #dde;padding:.4rem}</style>
</head><body><main>${body}</main></body></html>`;
}

function history(view: PortalView): string {
  if (view.history.length === 0) return '<p>No payments yet.</p>';
  return `<table><tr><th>Date</th><th>Amount</th><th>Status</th></tr>${view.history
    .map(
      (h) =>
        `<tr><td>${esc(h.created_at.slice(0, 10))}</td><td>$${esc(centsToUsd(h.amount_cents).toFixed(2))}</td><td>${esc(h.status)}${h.error_code ? ` (${esc(h.error_code)})` : ''}</td></tr>`,
    )
    .join('')}</table>`;
}

export function portalPage(action: string, view: PortalView, error?: string): string {
  const a = view.billing_address;
  const field = (name: string, label: string, value = '', extra = '') =>
    `<label for="${name}">${label}</label><input id="${name}" name="${name}" value="${esc(value)}" ${extra}>`;
  return layout(
    'Payment method',
    `<h1>Payment method</h1>
${error ? `<p class="error">${esc(error)}</p>` : ''}
<p>Current card: <strong>${esc(view.payment_method ?? 'none')}</strong></p>
<form method="post" action="${esc(action)}">
${field('card_number', 'Card number', '', 'autocomplete="cc-number" inputmode="numeric" required')}
${field('name', 'Name on the card', a?.name ?? '', 'required')}
${field('line1', 'Billing address', a?.line1 ?? '', 'required')}
${field('city', 'City', a?.city ?? '', 'required')}
${field('state', 'State', a?.state ?? '')}
${field('postal_code', 'ZIP / postal code', a?.postal_code ?? '', 'required')}
${field('country', 'Country', a?.country ?? 'US')}
<button type="submit">Save payment method</button></form>
<h2>Collection history</h2>${history(view)}
<p><a href="${esc(view.return_url)}">Back</a></p>`,
  );
}

export function portalDone(view: PortalView): string {
  return layout(
    'Payment method saved',
    `<h1>Payment method saved</h1><p>${esc(view.payment_method)} will be charged for recharges.</p>
<h2>Collection history</h2>${history(view)}<p><a href="${esc(view.return_url)}">Back</a></p>`,
  );
}

export function portalGone(): string {
  return layout(
    'This link is no longer valid',
    '<h1>This link is no longer valid</h1><p>Portal links work once and for 15 minutes. Ask for a new link from your dashboard or with POST /v1/account/payment-method/portal.</p>',
  );
}
