/**
 * A person in a real browser (Debian's chromium through playwright-core): signs in and approves the
 * consent page of an agent's authorization once; the agent then redeems the code.
 */
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { discover, insecure, registerPublicClient } from './flows.ts';
import { oauthServer, orgWithOwner, type OAuthServer } from './setup.ts';

describe('sign-in and consent in a browser', () => {
  let server: OAuthServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await oauthServer();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('signs in, ticks creator, approves, and lands on the client with a code it can redeem', async () => {
    const { owner } = await orgWithOwner(server);
    const as = await discover(server);
    const client = await registerPublicClient(server, { client_name: 'Browser Agent' });
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(`${server.url}/v1/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1/callback',
      response_type: 'code',
      scope: 'discovery creator account-read',
      resource: server.resources.mcp,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);

    const page = await browser.newPage();
    // The client's redirect target does not exist: catch the navigation to it instead of loading it.
    let callback: URL | null = null;
    await page.route('http://127.0.0.1/callback**', async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the client' });
    });
    await page.goto(url.href);
    await expect(page.title()).resolves.toContain('Sign in');
    await page.fill('input[name=email]', owner.email);
    await page.fill('input[name=password]', owner.password);
    await page.click('button[type=submit]');

    await page.waitForSelector('button[name=approve]');
    expect(await page.textContent('h1')).toContain('Browser Agent');
    expect(await page.isChecked('#scope-discovery')).toBe(true); // preselected
    expect(await page.isChecked('#scope-creator')).toBe(false); // explicit opt-in
    expect(await page.isChecked('#scope-account-read')).toBe(false);
    await page.check('#scope-creator');
    await page.click('button[name=approve]');
    await page.waitForURL('http://127.0.0.1/callback**');
    await page.close();

    expect(callback).not.toBeNull();
    const params = oauth.validateAuthResponse(as, client, callback!, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, 'http://127.0.0.1/callback', verifier, {
        additionalParameters: { resource: server.resources.mcp },
        ...insecure,
      }),
    );
    expect(tokens.scope?.split(' ').sort()).toEqual(['creator', 'discovery']);
  }, 60_000);
});
