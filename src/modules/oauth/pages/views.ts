/** The sign-in, consent, device and error pages (server-rendered, no script). */
import { html, page, trusted, type Markup } from './html.ts';

export interface ClientView {
  name: string;
  /** How the client is known: its metadata document's origin, or how it was registered. */
  provenance: string;
  uri: string | null;
}

export interface ScopeChoice {
  name: string;
  description: string;
  checked: boolean;
  /** Why the person cannot grant it (e.g. account-read needs an owner or admin), or null. */
  unavailable: string | null;
}

const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}">`;
const errorBox = (message: string | null) => (message ? html`<p class="error" role="alert">${message}</p>` : null);

export function loginPage(input: { action: string; csrf: string; client: ClientView; email?: string; error?: string | null }): string {
  return page(
    'Sign in',
    html`<h1>Sign in to continue</h1>
<p class="meta"><strong>${input.client.name}</strong> asks to connect to your organization's account.</p>
${errorBox(input.error ?? null)}
<form method="post" action="${input.action}">${csrfField(input.csrf)}
<label for="email">Email</label><input id="email" type="email" name="email" autocomplete="username" required value="${input.email ?? ''}">
<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function chooseAccountPage(input: { action: string; csrf: string; accounts: { userId: string; organization: string }[] }): string {
  return page(
    'Choose an organization',
    html`<h1>Choose an organization</h1>
<p class="meta">Your email belongs to more than one organization. Which one should this connection act for?</p>
<form method="post" action="${input.action}">${csrfField(input.csrf)}
${input.accounts.map((a) => html`<button type="submit" name="account" value="${a.userId}">${a.organization}</button>`)}
</form>`,
  );
}

export function consentPage(input: {
  action: string;
  csrf: string;
  client: ClientView;
  resource: { url: string; title: string };
  person: { email: string; organization: string };
  scopes: ScopeChoice[];
}): string {
  const { client, resource, person } = input;
  const scopeRow = (s: ScopeChoice): Markup => html`<div class="scope">
<input type="checkbox" id="scope-${s.name}" name="scope" value="${s.name}"${s.checked && !s.unavailable ? html` checked` : ''}${s.unavailable ? html` disabled` : ''}>
<div><label for="scope-${s.name}">${s.name}</label><p>${s.description}${s.unavailable ? html` <em>${s.unavailable}</em>` : ''}</p></div></div>`;
  return page(
    'Allow access',
    html`<h1>Allow ${client.name} to access your account?</h1>
<p class="meta">Client: <strong>${client.name}</strong> (${client.provenance})${client.uri ? html`, <a href="${client.uri}" rel="noreferrer">${client.uri}</a>` : ''}</p>
<p class="meta">Resource: <strong>${resource.title}</strong> <code>${resource.url}</code></p>
<p class="meta">Signed in as <strong>${person.email}</strong> in <strong>${person.organization}</strong>.</p>
<form method="post" action="${input.action}">${csrfField(input.csrf)}
<fieldset><legend>Access requested</legend>${input.scopes.map(scopeRow)}</fieldset>
<button type="submit" name="approve" value="approve">Approve</button>
<button type="submit" name="deny" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

export function devicePage(input: {
  title: string;
  intro: Markup | string;
  form?: string;
  buttons?: Markup;
  error?: string | null;
}): string {
  const form = input.form ? trusted(input.form) : null;
  return page(
    input.title,
    html`<h1>${input.title}</h1>${errorBox(input.error ?? null)}<p>${input.intro}</p>${form}${input.buttons ?? null}`,
  );
}

export function messagePage(title: string, message: string, detail?: string | null): string {
  return page(title, html`<h1>${title}</h1><p>${message}</p>${detail ? html`<p class="meta">${detail}</p>` : null}`);
}

export function invitationPage(input: {
  action: string;
  csrf: string;
  email: string;
  organization: string;
  error?: string | null;
}): string {
  return page(
    'Accept your invitation',
    html`<h1>Join ${input.organization}</h1>
<p class="meta">Choose a password for <strong>${input.email}</strong>. Accepting also confirms this email address.</p>
${errorBox(input.error ?? null)}
<form method="post" action="${input.action}">${csrfField(input.csrf)}
<label for="password">Password (12 characters or more)</label><input id="password" type="password" name="password" autocomplete="new-password" minlength="12" required>
<label for="confirm">Password again</label><input id="confirm" type="password" name="confirm" autocomplete="new-password" minlength="12" required>
<button type="submit">Accept and set password</button>
</form>`,
  );
}

export function outboxPage(messages: { to: string; subject: string; text: string; createdAt: Date; sent: boolean }[]): string {
  return page(
    'Outbox (development)',
    html`<h1>Outgoing mail (development outbox)</h1>
<p class="meta">Without SMTP_URL, mail is kept here instead of being sent. This page is not served in production.</p>
${messages.length ? html`<table><tr><th>When</th><th>To</th><th>Message</th></tr>${messages.map((m) => html`<tr><td>${m.createdAt.toISOString()}</td><td>${m.to}</td><td><strong>${m.subject}</strong><pre>${m.text}</pre></td></tr>`)}</table>` : html`<p>No mail yet.</p>`}`,
  );
}
