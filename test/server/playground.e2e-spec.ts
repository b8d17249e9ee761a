import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PlaygroundFixtureModule } from '../fixtures/playground.fixture.js';
import { ADAPTERS, type AdapterName, type RunningApp, startApp } from '../support/app.factory.js';
import { freePort } from '../support/free-port.js';
import { LEGACY_VERSION, openLegacyGet, rawInitialize } from '../support/legacy-client.factory.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { rawHttp } from '../support/wire-response.util.js';

/**
 * The playground at the endpoint (docs/playground.md), on both adapters: a browser's GET (`Accept: text/html`) gets the
 * page under a strict CSP (its one inline script and style by hash), `?mcp-app-sandbox` the MCP Apps sandbox proxy in
 * an opaque origin; every other GET is answered as before (405, or a 2025-11-25 session's stream). It is off with
 * NODE_ENV=production and with `playground: false`, and the Host/Origin check refuses page requests as it refuses the
 * rest. With `auth`, the page needs no token (it holds nothing of the server) while everything else still does.
 */

/** What Chromium sends when the address bar opens a URL. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const pageOf = (url: URL | string, headers: Record<string, string> = {}) =>
  fetch(url, { headers: { accept: BROWSER_ACCEPT, ...headers } });

/** The CSP header as directive → sources. */
function directives(policy: string | null): Map<string, string[]> {
  return new Map(
    (policy ?? '')
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name, sources]),
  );
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The text of the one inline element of `tag` without attributes (the page's script and style). */
function inlineElement(html: string, tag: 'script' | 'style'): string {
  const matches = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))];
  expect(matches, `one inline <${tag}>`).toHaveLength(1);
  return matches[0][1];
}

describe.each(ADAPTERS)('the playground at the endpoint (%s)', (adapter) => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [PlaygroundFixtureModule.serve()] });
  });
  afterAll(async () => {
    await running?.close();
  });

  it('a browser GET gets the page, under a CSP that admits only its own inline script and style by hash', async () => {
    const response = await pageOf(running.mcpUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<title>MCP playground</title>');
    const csp = directives(response.headers.get('content-security-policy'));
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual([sha256(inlineElement(html, 'script'))]);
    expect(csp.get('style-src')).toEqual([sha256(inlineElement(html, 'style'))]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('frame-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(response.headers.get('content-security-policy')).not.toMatch(/unsafe-(inline|eval)|https?:/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    // The page names no framework, and loads nothing from anywhere: no src, no href but the empty data: icon.
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(html).not.toMatch(/<script[^>]+src=|<link(?![^>]*href="data:,")[^>]*href=/);
    // The same page on a sign-in redirect back (a query), and for `Accept: text/html` alone.
    const back = await pageOf(new URL('?code=abc&state=xyz', running.mcpUrl));
    expect(back.status).toBe(200);
    expect(await back.text()).toBe(html);
    expect((await pageOf(running.mcpUrl, { accept: 'text/html' })).status).toBe(200);
  });

  it('?mcp-app-sandbox gets the sandbox proxy: an opaque origin (CSP sandbox), framed only by the page', async () => {
    const response = await pageOf(new URL('?mcp-app-sandbox', running.mcpUrl));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<title>MCP App sandbox</title>');
    const csp = directives(response.headers.get('content-security-policy'));
    expect(csp.get('sandbox')).toEqual(['allow-scripts']);
    expect(csp.get('frame-ancestors')).toEqual(["'self'"]);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).not.toContain("'unsafe-eval'");
  });

  it('every other GET and DELETE is answered as before: 405, Allow: POST', async () => {
    for (const accept of [undefined, 'application/json, text/event-stream', 'text/event-stream', '*/*']) {
      const response = await fetch(running.mcpUrl, { headers: accept ? { accept } : {} });
      expect(response.status, `Accept: ${accept}`).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
    const deleted = await fetch(running.mcpUrl, { method: 'DELETE', headers: { accept: BROWSER_ACCEPT } });
    expect(deleted.status).toBe(405);
    // A POST from a browser is MCP, not the page.
    const post = await fetch(running.mcpUrl, {
      method: 'POST',
      headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(post.headers.get('content-type')).toBe('application/json');
  });

  it("a 2025-11-25 client's GET stream still opens, whatever its Accept says besides", async () => {
    for (const accept of ['text/event-stream', 'text/html, text/event-stream']) {
      // A session has one GET stream at a time: one session per try.
      const { sessionId } = await rawInitialize(running.mcpUrl);
      const stream = await openLegacyGet(running.mcpUrl, { sessionId, headers: { accept } });
      expect(stream.response.status, `Accept: ${accept}`).toBe(200);
      expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(stream.response.headers.get('mcp-protocol-version') ?? LEGACY_VERSION).toBe(LEGACY_VERSION);
      stream.close();
    }
  });

  it('the Host/Origin check refuses page requests exactly as it refuses MCP requests (403 -32600)', async () => {
    const url = running.mcpUrl;
    const get = (headers: string[]) =>
      rawHttp(
        url,
        [`GET ${url.pathname} HTTP/1.1`, ...headers, `Accept: ${BROWSER_ACCEPT}`, 'Connection: close', '', ''].join(
          '\r\n',
        ),
      );
    const rebound = await get(['Host: attacker.example']);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.code).toBe(-32600);
    const foreignOrigin = await get([`Host: ${url.host}`, 'Origin: https://attacker.example']);
    expect(foreignOrigin.status).toBe(403);
    const twoHosts = await get([`Host: ${url.host}`, `Host: ${url.host}`]);
    expect(twoHosts.status).toBe(400);
    const own = await get([`Host: ${url.host}`, `Origin: ${url.origin}`]);
    expect(own.status).toBe(200);
    expect(own.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});

describe.each(ADAPTERS)('the playground turned off (%s)', (adapter) => {
  let running: RunningApp | undefined;
  const environment = process.env.NODE_ENV;
  afterEach(async () => {
    process.env.NODE_ENV = environment;
    await running?.close();
    running = undefined;
  });

  async function expectNoPage(app: RunningApp): Promise<void> {
    for (const url of [app.mcpUrl, new URL('?mcp-app-sandbox', app.mcpUrl)]) {
      const response = await pageOf(url);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await response.text()).toBe('');
    }
  }

  it('is off with NODE_ENV=production', async () => {
    process.env.NODE_ENV = 'production';
    running = await startApp(adapter, { imports: [PlaygroundFixtureModule.serve()] });
    await expectNoPage(running);
  });

  it('is off with playground: false', async () => {
    running = await startApp(adapter, { imports: [PlaygroundFixtureModule.serve({ playground: false })] });
    await expectNoPage(running);
  });

  it('is on with NODE_ENV=production when the option asks for it', async () => {
    process.env.NODE_ENV = 'production';
    running = await startApp(adapter, {
      imports: [PlaygroundFixtureModule.serve({ playground: { clientId: 'my-client' } })],
    });
    const response = await pageOf(running.mcpUrl);
    expect(response.status).toBe(200);
    // The option's fields reach the page's configuration block, as JSON.
    expect(await response.text()).toContain('{"clientId":"my-client"}');
  });

  it('refuses a malformed option at startup', async () => {
    await expect(
      startApp(adapter as AdapterName, { imports: [PlaygroundFixtureModule.serve({ playground: 'yes' as never })] }),
    ).rejects.toThrow('McpModule: option "playground" must be a boolean or { clientId?, scopes? }');
  });
});

describe.each(ADAPTERS)('the playground with auth (%s)', (adapter) => {
  let as: TestAuthorizationServer;
  let running: RunningApp;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    running = await startApp(
      adapter,
      { imports: [PlaygroundFixtureModule.serve({ auth: { resource, authorizationServers: [as.issuer] } })] },
      { port },
    );
  });
  afterAll(async () => {
    await running?.close();
    await as?.close();
  });

  it('serves the page without a token, lets it fetch from the authorization server, and still wants a token for the rest', async () => {
    const page = await pageOf(running.mcpUrl);
    expect(page.status).toBe(200);
    const csp = directives(page.headers.get('content-security-policy'));
    expect(csp.get('connect-src')).toEqual(["'self'", new URL(as.issuer).origin]);

    const stream = await fetch(running.mcpUrl, { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(401);
    expect(stream.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="/);
    const post = await fetch(running.mcpUrl, {
      method: 'POST',
      headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(post.status).toBe(401);
  });
});
