/**
 * A scripted browser: follows redirects by hand, keeps cookies by path, reads our forms' fields, and
 * submits them as a person would (the login form's `email`/`password`, the consent form's `scope`
 * checkboxes and `approve`/`deny` buttons, the device pages' hidden fields).
 */
export interface Page {
  status: number;
  url: string;
  location: string | null;
  body: string;
}

export class ScriptBrowser {
  private cookies = new Map<string, { value: string; path: string }>();

  private cookieHeader(url: URL): string {
    return [...this.cookies]
      .filter(([, c]) => url.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((p) => p.trim());
      const [name, ...rest] = pair!.split('=');
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attrs.some((a) => /^expires=thu, 01 jan 1970/i.test(a)) || attrs.some((a) => /^max-age=0$/i.test(a));
      if (expired || rest.join('=') === '') this.cookies.delete(name!);
      else this.cookies.set(name!, { value: rest.join('='), path });
    }
  }

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string | string[]>; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const target = new URL(url);
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.cookieHeader(target);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(init.form)) for (const item of ([] as string[]).concat(v)) params.append(k, item);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = target.origin;
    }
    const response = await fetch(target, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    this.remember(response);
    const location = response.headers.get('location');
    return {
      status: response.status,
      url: target.href,
      location: location ? new URL(location, target).href : null,
      body: await response.text(),
    };
  }

  /** GETs `url` and follows redirects while they stay on `origin`; stops at the first page or off-site redirect. */
  async follow(url: string, origin: string, init?: Parameters<ScriptBrowser['request']>[1]): Promise<Page> {
    let page = await this.request(url, init);
    for (let hops = 0; page.location && page.location.startsWith(origin) && hops < 10; hops++) page = await this.request(page.location);
    return page;
  }
}

/** The `name="..." value="..."` hidden inputs and the action of the first form on a page. */
export function formOf(body: string): { action: string; fields: Record<string, string> } {
  const form = body.match(/<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/);
  if (!form) throw new Error(`no form on the page: ${body.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = input[0].match(/name="([^"]+)"/)?.[1];
    const value = input[0].match(/value="([^"]*)"/)?.[1];
    if (name)
      fields[name] = (value ?? '')
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'");
  }
  return { action: form[1]!.replace(/&amp;/g, '&'), fields };
}
