import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHttpModule, STEP_UP_CHALLENGE } from '../fixtures/auth-http.fixture.js';
import { ADAPTERS } from '../support/app.factory.js';
import { type AuthApp, bearer, callTool, expectRefusal, parseChallenge, startAuthApp } from '../support/auth-app.js';
import {
  BAD_TOKEN_KINDS,
  type BadTokenKind,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '../support/oidc-provider.js';
import { mcpHeaders, mcpPost, requestMeta } from '../support/raw-request.util.js';
import { expectResult, textOf } from '../support/wire-response.util.js';

/**
 * Issue #17, the HTTP side of authorization (MCP 2026-07-28 "Authorization", T-AUTH-01…06, 08, 10…13; 2025-11-25
 * B-AUTH-01), against a real authorization server (oidc-provider on loopback, test/support/oidc-provider.ts) on both
 * adapters and both wires: the bearer check before anything else, its challenges, the principal of a verified token
 * binding requestState and sessions, Protected Resource Metadata at both well-known URIs (global prefix included),
 * and no token in any log line.
 */

const LEGACY_VERSION = '2025-11-25';
const PRM_PATH = '/.well-known/oauth-protected-resource';
const CLIENT_A = { clientId: 'svc-alpha', clientSecret: 'alpha-secret-0123456789' };
const CLIENT_B = { clientId: 'svc-beta', clientSecret: 'beta-secret-0123456789' };
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const FORM = { elicitation: { form: {} } };
const APPROVE = { approve: { action: 'accept', content: { approve: true } } };

/** What a correct verifier says about each bad token (auth/auth.messages.ts, `McpTokenMessages`). */
const DESCRIPTIONS: Record<BadTokenKind, RegExp> = {
  expired: /^The token expired$/,
  'not-yet-valid': /^The token is not valid yet$/,
  'wrong-audience': /^The token was not issued for this resource$/,
  'wrong-issuer': /^The token was not issued by an authorization server this resource trusts$/,
  unsigned: /^The token is signed with an algorithm this resource does not accept$/,
  tampered: /^The token signature is invalid$/,
  'foreign-key': /^The token signature is invalid$/,
  'hs256-public-key': /^The token is signed with an algorithm this resource does not accept$/,
};

/** A raw 2025-11-25 request: POST of a JSON-RPC message, or GET / DELETE. */
async function legacyRequest(
  app: AuthApp,
  verb: 'POST' | 'GET' | 'DELETE',
  headers: Record<string, string>,
  message?: Record<string, unknown>,
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const base: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (message) base['content-type'] = 'application/json';
  const response = await fetch(app.mcpUrl, {
    method: verb,
    headers: { ...base, ...headers },
    body: message && JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  // A GET that opened its stream never ends: read only what a refusal sends.
  const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') && verb === 'GET';
  const text = streaming ? '' : await response.text();
  if (streaming) await response.body?.cancel();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

const INITIALIZE = {
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'auth-e2e', version: '1.0.0' } },
};

/** Opens a 2025-11-25 session with the token's caller; resolves with its id. */
async function openSession(app: AuthApp, token: string): Promise<string> {
  const answer = await legacyRequest(app, 'POST', bearer(token), INITIALIZE);
  expect(answer.status, answer.text).toBe(200);
  const sessionId = answer.headers.get('mcp-session-id');
  expect(sessionId).toBeTypeOf('string');
  await legacyRequest(
    app,
    'POST',
    { ...bearer(token), 'mcp-session-id': sessionId!, 'mcp-protocol-version': LEGACY_VERSION },
    {
      method: 'notifications/initialized',
    },
  );
  return sessionId!;
}

/** A 2025-11-25 `tools/call` in a session. */
function legacyCall(app: AuthApp, token: string, sessionId: string, name: string, args: Record<string, unknown> = {}) {
  return legacyRequest(
    app,
    'POST',
    { ...bearer(token), 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_VERSION },
    {
      id: 7,
      method: 'tools/call',
      params: { name, arguments: args },
    },
  );
}

let as: TestAuthorizationServer;
/** Every token a test sent, to look for in the logs afterwards. */
const tokensSent = new Set<string>();

async function tokenFor(
  client: { clientId: string; clientSecret: string },
  resource: string,
  scope = 'mcp:read',
): Promise<string> {
  const { access_token } = await as.clientCredentialsToken({
    resource,
    scope,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
  });
  tokensSent.add(access_token);
  return access_token;
}

beforeAll(async () => {
  as = await startAuthorizationServer({ confidentialClients: [CLIENT_A, CLIENT_B] });
});
afterAll(async () => {
  await as?.close();
});

describe.each(ADAPTERS)('bearer check before dispatch (%s)', (adapter) => {
  let app: AuthApp;
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    app = await startAuthApp(adapter, (resource) => ({
      resource,
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp:read'],
      resourceName: 'auth e2e',
    }));
    tokenA = await tokenFor(CLIENT_A, app.resource);
    tokenB = await tokenFor(CLIENT_B, app.resource);
  });
  afterAll(async () => {
    await app?.close();
  });

  const metadataUrl = () => `${app.origin}${PRM_PATH}/mcp`;

  it('no token → 401 with `Bearer resource_metadata="…", scope="mcp:read"` and no error code, on every verb of both wires; nothing runs', async () => {
    const runs = app.probe.principals.length;
    const answers = [
      await callTool(app, 'whoami', {}),
      await legacyRequest(app, 'POST', {}, INITIALIZE),
      await legacyRequest(app, 'GET', { 'mcp-session-id': 'whatever', 'mcp-protocol-version': LEGACY_VERSION }),
      await legacyRequest(app, 'DELETE', { 'mcp-session-id': 'whatever', 'mcp-protocol-version': LEGACY_VERSION }),
      // Even the verbs a 2026-only request would get 405 for: nothing about the endpoint is told without a token.
      await legacyRequest(app, 'GET', {}),
    ];
    for (const answer of answers) {
      const params = expectRefusal(answer, 401);
      expect(params).toEqual({ resource_metadata: metadataUrl(), scope: 'mcp:read' });
    }
    // The exact header, as MCP clients parse it.
    expect(answers[0].headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl()}", scope="mcp:read"`,
    );
    expect(app.probe.principals.length).toBe(runs);
  });

  it.each(BAD_TOKEN_KINDS)('a %s token → 401 invalid_token with its description, on both wires', async (kind) => {
    const token = await as.mintBadToken(kind, { resource: app.resource, scope: 'mcp:read' });
    tokensSent.add(token);
    const runs = app.probe.principals.length;
    for (const answer of [
      await callTool(app, 'whoami', bearer(token)),
      await legacyRequest(app, 'POST', bearer(token), INITIALIZE),
    ]) {
      const params = expectRefusal(answer, 401, 'invalid_token');
      expect(params.resource_metadata).toBe(metadataUrl());
      expect(params.error_description).toMatch(DESCRIPTIONS[kind]);
      expect(answer.text).not.toContain(token);
      expect(answer.headers.get('www-authenticate')).not.toContain(token);
    }
    expect(app.probe.principals.length).toBe(runs);
  });

  it('a valid client-credentials token → 200, and its subject is the principal the handler sees (2026 wire)', async () => {
    const response = await callTool(app, 'whoami', bearer(tokenA));
    expect(textOf(expectResult(response, 'tools/call'))).toBe(`principal=${CLIENT_A.clientId}`);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(textOf(expectResult(await callTool(app, 'whoami', bearer(tokenB)), 'tools/call'))).toBe(
      `principal=${CLIENT_B.clientId}`,
    );
  });

  it('a valid token on the 2025-11-25 wire: the session serves its creator', async () => {
    const sessionId = await openSession(app, tokenA);
    const answer = await legacyCall(app, tokenA, sessionId, 'whoami');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.result.content[0].text).toBe(`principal=${CLIENT_A.clientId}`);
  });

  it('a 2025-11-25 session is bound to its creator: another principal gets 404 on POST, GET and DELETE, as for an unknown session', async () => {
    const sessionId = await openSession(app, tokenA);
    const headersB = { ...bearer(tokenB), 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_VERSION };
    const unknown = await legacyCall(app, tokenB, 'no-such-session', 'whoami');
    for (const answer of [
      await legacyCall(app, tokenB, sessionId, 'whoami'),
      await legacyRequest(app, 'GET', headersB),
      await legacyRequest(app, 'DELETE', headersB),
    ]) {
      expect(answer.status, answer.text).toBe(404);
      expect(answer.json.error.message).toBe(unknown.json.error.message);
    }
    // Still there for its creator (B's DELETE did not end it).
    const answer = await legacyCall(app, tokenA, sessionId, 'whoami');
    expect(answer.status, answer.text).toBe(200);
  });

  it('a requestState started by one principal is refused for another (200 / -32602), and completes for its own', async () => {
    const first = await mcpPost(app.mcpUrl, {
      method: 'tools/call',
      params: { name: 'transfer', arguments: { amount: 5 } },
      meta: requestMeta({ [CAPS]: FORM }),
      headers: bearer(tokenA),
    });
    const { requestState, resultType } = expectResult<{ requestState: string; resultType: string }>(
      first,
      'tools/call',
    );
    expect(resultType).toBe('input_required');
    const retry = (token: string) =>
      mcpPost(app.mcpUrl, {
        method: 'tools/call',
        params: { name: 'transfer', arguments: { amount: 5 }, requestState, inputResponses: APPROVE },
        meta: requestMeta({ [CAPS]: FORM }),
        headers: bearer(token),
      });
    const foreign = await retry(tokenB);
    expect(foreign.status).toBe(200);
    expect((foreign.json as any).error).toMatchObject({
      code: -32602,
      message: 'Invalid requestState: it belongs to another caller',
    });
    expect(app.probe.transfers).not.toContain(5);
    expect(textOf(expectResult(await retry(tokenA), 'tools/call'))).toBe(`transferred 5 for ${CLIENT_A.clientId}`);
  });

  it('an McpAuthError raised while the call runs (a scope check) → its status and WWW-Authenticate, with the request id, on both wires', async () => {
    const modern = await callTool(app, 'stepUp', bearer(tokenA));
    expect(modern.status).toBe(403);
    expect(modern.headers.get('www-authenticate')).toBe(STEP_UP_CHALLENGE);
    expect(modern.json).toMatchObject({
      jsonrpc: '2.0',
      id: modern.sentId,
      error: { code: -32600, message: 'Forbidden: this tool needs mcp:admin' },
    });

    const sessionId = await openSession(app, tokenA);
    const legacy = await legacyCall(app, tokenA, sessionId, 'stepUp');
    expect(legacy.status, legacy.text).toBe(403);
    expect(legacy.headers.get('www-authenticate')).toBe(STEP_UP_CHALLENGE);
    expect(legacy.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });

    // Once the response streams (a progress notification went out first), the refusal is the stream's last event.
    const streamed = await mcpPost(app.mcpUrl, {
      method: 'tools/call',
      params: { name: 'stepUp', arguments: {} },
      meta: requestMeta({ progressToken: 'p1' }),
      headers: bearer(tokenA),
    });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(streamed.headers.get('www-authenticate')).toBeNull();
    expect(streamed.text).toContain('Forbidden: this tool needs mcp:admin');
  });

  it('a token for the upper-case scheme and host form of the resource URI is accepted (T-AUTH-11)', async () => {
    const upper = app.resource.replace('http://127.0.0.1', 'HTTP://127.0.0.1');
    const token = await tokenFor(CLIENT_A, upper);
    expect(textOf(expectResult(await callTool(app, 'whoami', bearer(token)), 'tools/call'))).toBe(
      `principal=${CLIENT_A.clientId}`,
    );
  });

  it('a token meant for another resource of the same server is refused (no passthrough, T-AUTH-05/06)', async () => {
    const other = await tokenFor(CLIENT_A, `${app.origin}/other`);
    expectRefusal(await callTool(app, 'whoami', bearer(other)), 401, 'invalid_token');
  });

  it('a token in the query string → 400 invalid_request, even with a valid header; the handler never runs', async () => {
    const runs = app.probe.principals.length;
    for (const headers of [{}, bearer(tokenA)]) {
      const url = new URL(app.mcpUrl);
      url.searchParams.set('access_token', tokenA);
      const response = await fetch(url, {
        method: 'POST',
        headers: { ...mcpHeaders('tools/call', { name: 'whoami' }), ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'whoami', arguments: {}, _meta: requestMeta() },
        }),
      });
      const text = await response.text();
      const params = expectRefusal(
        { status: response.status, headers: response.headers, text, json: JSON.parse(text) },
        400,
        'invalid_request',
      );
      expect(params.error_description).toMatch(/query string/);
      expect(text).not.toContain(tokenA);
    }
    expect(app.probe.principals.length).toBe(runs);
  });

  it('a malformed Bearer header → 400 invalid_request; another scheme is no credentials → 401 without error code', async () => {
    for (const authorization of [
      'Bearer',
      `Bearer ${tokenA} extra`,
      'Bearer a"b',
      `Bearer ${tokenA},x`,
      'Bearer =abc',
    ]) {
      const params = expectRefusal(await callTool(app, 'whoami', { authorization }), 400, 'invalid_request');
      expect(params.resource_metadata).toBe(metadataUrl());
    }
    for (const authorization of ['Basic dXNlcjpwYXNz', `Token ${tokenA}`]) {
      expectRefusal(await callTool(app, 'whoami', { authorization }), 401);
    }
    // The scheme is case-insensitive (RFC 7235 §2.1), and `1*SP` may separate it from the token (RFC 6750 §2.1).
    for (const authorization of [`bearer ${tokenA}`, `BEARER   ${tokenA}`]) {
      expect(textOf(expectResult(await callTool(app, 'whoami', { authorization }), 'tools/call'))).toBe(
        `principal=${CLIENT_A.clientId}`,
      );
    }
  });

  it('the official MCP client with ClientCredentialsProvider: 401 → metadata → token for this resource → tool call', async () => {
    const provider = new ClientCredentialsProvider({ ...CLIENT_A, scope: 'mcp:read', expectedIssuer: as.issuer });
    const client = new Client(
      { name: 'auth-e2e', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const transport = new StreamableHTTPClientTransport(app.mcpUrl, { authProvider: provider });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect((result.content as Array<{ text: string }>)[0].text).toBe(`principal=${CLIENT_A.clientId}`);
      const token = provider.tokens()?.access_token;
      expect(token).toBeTypeOf('string');
      tokensSent.add(token!);
    } finally {
      await client.close();
    }
  });

  it('Protected Resource Metadata at the path-suffixed and root well-known URIs: GET, HEAD, CORS preflight, cache', async () => {
    for (const path of [`${PRM_PATH}/mcp`, PRM_PATH]) {
      const response = await fetch(`${app.origin}${path}`, { headers: { origin: 'https://app.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
      expect(await response.json()).toEqual({
        resource: app.resource,
        authorization_servers: [as.issuer],
        scopes_supported: ['mcp:read'],
        bearer_methods_supported: ['header'],
        resource_name: 'auth e2e',
      });
      const head = await fetch(`${app.origin}${path}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(await head.text()).toBe('');
      const preflight = await fetch(`${app.origin}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'mcp-protocol-version',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-headers')).toBe('mcp-protocol-version');
      expect((await fetch(`${app.origin}${path}`, { method: 'POST' })).status).toBe(405);
    }
  });

  it('with `auth`, states and sessions are bound to a caller: no "not bound to a caller" warning at startup', () => {
    expect(app.logger.lines.filter((line) => line.includes('not bound to a caller'))).toEqual([]);
  });

  it('no token ever reaches a log line (T-AUTH-12)', () => {
    expect(tokensSent.size).toBeGreaterThan(5);
    const logged = app.logger.lines.join('\n');
    expect(logged.length).toBeGreaterThan(0);
    for (const token of tokensSent) {
      expect(logged).not.toContain(token);
      // Nor its signature alone (the part that makes it usable).
      expect(logged).not.toContain(token.split('.')[2] || token);
    }
  });
});

describe.each(ADAPTERS)('Protected Resource Metadata and the global prefix (%s)', (adapter) => {
  it('with setGlobalPrefix("api") the endpoint is /api/mcp and its metadata at the host root, /.well-known/oauth-protected-resource/api/mcp', async () => {
    const app = await startAuthApp(adapter, (resource) => ({ resource, authorizationServers: [as.issuer] }), {
      prefix: 'api',
    });
    try {
      expect(app.mcpUrl.pathname).toBe('/api/mcp');
      const document = await fetch(`${app.origin}${PRM_PATH}/api/mcp`);
      expect(document.status).toBe(200);
      expect(await document.json()).toMatchObject({
        resource: `${app.origin}/api/mcp`,
        authorization_servers: [as.issuer],
      });
      expect((await fetch(`${app.origin}${PRM_PATH}`)).status).toBe(200);
      // Not under the prefix: the well-known URIs belong to the host (RFC 8615).
      expect((await fetch(`${app.origin}/api${PRM_PATH}/api/mcp`)).status).toBe(404);
      const refused = await callTool(app, 'whoami', {});
      expect(parseChallenge(refused.headers.get('www-authenticate')).params).toEqual({
        resource_metadata: `${app.origin}${PRM_PATH}/api/mcp`,
      });
      const token = await tokenFor(CLIENT_A, app.resource);
      expect(textOf(expectResult(await callTool(app, 'whoami', bearer(token)), 'tools/call'))).toBe(
        `principal=${CLIENT_A.clientId}`,
      );
    } finally {
      await app.close();
    }
  });

  it('without `auth`: both well-known URIs answer 404 and calls need no token', async () => {
    const app = await startAuthApp(adapter, undefined);
    try {
      expect((await fetch(`${app.origin}${PRM_PATH}/mcp`)).status).toBe(404);
      expect((await fetch(`${app.origin}${PRM_PATH}`)).status).toBe(404);
      const response = await callTool(app, 'whoami', {});
      expect(textOf(expectResult(response, 'tools/call'))).toBe('principal=none');
    } finally {
      await app.close();
    }
  });
});

describe('options', () => {
  it('refuses `principal` together with `auth`, pointing to `auth.principal`', async () => {
    const compiling = Test.createTestingModule({
      imports: [
        AuthHttpModule.serve({
          principal: () => 'x',
          auth: { resource: 'http://127.0.0.1:1/mcp', authorizationServers: [as.issuer] },
        }),
      ],
    }).compile();
    await expect(compiling).rejects.toThrow(/"principal" and "auth" cannot be used together.*auth\.principal/s);
  });

  it('maps the token to the principal with `auth.principal`', async () => {
    const app = await startAuthApp('express', (resource) => ({
      resource,
      authorizationServers: [as.issuer],
      principal: (token) => `${token.clientId}@${new URL(token.issuer!).host}`,
    }));
    try {
      const token = await tokenFor(CLIENT_B, app.resource);
      const text = textOf(expectResult(await callTool(app, 'whoami', bearer(token)), 'tools/call'));
      expect(text).toBe(`principal=${CLIENT_B.clientId}@${new URL(as.issuer).host}`);
    } finally {
      await app.close();
    }
  });
});
