/**
 * Server-rendered pages without a template engine or front-end build: a tagged template that escapes
 * every interpolated value unless it is already markup, and one layout. Pages carry no script.
 */
const MARKUP = Symbol('markup');

export interface Markup {
  readonly [MARKUP]: true;
  readonly text: string;
}

const markup = (text: string): Markup => ({ [MARKUP]: true, text });
const isMarkup = (value: unknown): value is Markup => typeof value === 'object' && value !== null && MARKUP in value;

/** Markup built and escaped elsewhere (the library's own form fields). Never pass request data here. */
export const trusted = (text: string): Markup => markup(text);

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

type Part = string | number | Markup | null | undefined | false | readonly Part[];

function render(value: Part): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (isMarkup(value)) return value.text;
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Markup {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return markup(out);
}

/** Content-Security-Policy of every page: no script, no framing (consent must not be clickjacked). */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

export function page(title: string, body: Markup): string {
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${title} · Audience Data Service</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:34rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:10px;box-shadow:0 1px 4px #0002}
h1{font-size:1.35rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #aab;border-radius:6px;font-size:1rem}
.scope{display:flex;gap:.6rem;align-items:flex-start;margin:.6rem 0}.scope label{margin:0;font-weight:600}.scope p{margin:.1rem 0 0;font-weight:400;color:#4a5263}
button{margin-top:1.2rem;margin-right:.6rem;padding:.55rem 1.2rem;font-size:1rem;border-radius:6px;border:1px solid #2b4acb;background:#2b4acb;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#2b4acb}.error{background:#fde8e8;color:#8a1c1c;padding:.6rem .8rem;border-radius:6px}
.meta{color:#4a5263;font-size:.92rem}code{background:#eef0f4;padding:.1rem .3rem;border-radius:4px}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{text-align:left;border-bottom:1px solid #dde;padding:.4rem;vertical-align:top}pre{white-space:pre-wrap}
</style></head><body><main>${body}</main></body></html>`.text
  }`;
}
