import {
  Client,
  ClientCredentialsProvider,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionEndpointId,
  createTaskSessionFromClient,
} from '@modelcontextprotocol/ext-tasks/client';
import { taskId as asTaskId } from '@modelcontextprotocol/ext-tasks/core';
import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { McpAuthOptions } from 'nest-mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extTasksRawDispatch } from '../support/ext-tasks-dispatch.js';
import { OPS_SCOPE_HIERARCHY, OpsConsoleModule, OpsProbe } from '../fixtures/auth-official-client.fixture.js';
import { ADAPTERS, type AdapterName } from '../support/app.factory.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { mcpPost } from '../support/raw-request.util.js';
import { freePort } from '../support/free-port.js';

/**
 * Issue #17, end to end with the clients people use: the official MCP client (`@modelcontextprotocol/client`) and its
 * OAuth support, against a real authorization server (oidc-provider on loopback) and nest-mcp with `auth`, on both
 * adapters. Client credentials and authorization code + PKCE (login and consent driven headlessly) obtain tokens the
 * server accepts; the client finds the authorization server from the 401's `resource_metadata`; a 403
 * `insufficient_scope` makes it ask for the broader scope and retry; two callers see different lists; a task is its
 * creator's only; a revoked opaque token is refused (introspection).
 */

const PROTOCOL = '2026-07-28';
const SCOPES = ['ops:read', 'ops:write', 'ops:admin'];
/** Every scope (client credentials), and `ops:read` only. */
const SCRIPTS = { clientId: 'ops-scripts', clientSecret: 'scripts-secret-0123456789' };
const VIEWER = { clientId: 'ops-viewer', clientSecret: 'viewer-secret-0123456789', scopes: ['ops:read'] };
/** A public client: authorization code + PKCE, loopback redirect. */
const APP_CLIENT_ID = 'ops-console-app';
const REDIRECT_URI = 'http://127.0.0.1/callback';
const PRM_PREFIX = '/.well-known/oauth-protected-resource';
const clientInfo = { name: 'nest-mcp-auth-e2e', version: '1.0.0' };

interface OpsApp {
  app: INestApplication;
  mcpUrl: URL;
  resource: string;
  probe: OpsProbe;
}

/** Serves the ops console fixture on `adapter` with `auth` for its own URL. */
async function startOpsApp(adapter: AdapterName, auth: (resource: string) => McpAuthOptions): Promise<OpsApp> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const moduleRef = await Test.createTestingModule({ imports: [OpsConsoleModule.serve(auth(resource))] }).compile();
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  await app.listen(port, '127.0.0.1');
  return { app, mcpUrl: new URL(resource), resource, probe: app.get(OpsProbe) };
}

/** One HTTP exchange the client made (to the MCP server or the authorization server). */
interface Exchange {
  method: string;
  url: string;
  status: number;
  challenge: string | null;
}

/** A `fetch` that records every exchange, for the transport (which also uses it for its OAuth requests). */
function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const response = await fetch(input, init);
    log.push({
      method: init?.method ?? (input instanceof Request ? input.method : 'GET'),
      url,
      status: response.status,
      challenge: response.headers.get('www-authenticate'),
    });
    return response;
  };
}

/**
 * The OAuth client of an interactive app (a public client: authorization code + PKCE), as a host implements
 * `OAuthClientProvider`: here the "browser" is `as.authorize`, which logs in as `user` and consents.
 */
class InteractiveAppProvider implements OAuthClientProvider {
  readonly redirectUrl = REDIRECT_URI;
  /** Without a `scope` in the challenge or the metadata, the client asks for its own: `ops:read`. */
  readonly clientMetadata = {
    client_name: 'ops console app',
    redirect_uris: [REDIRECT_URI],
    token_endpoint_auth_method: 'none',
    scope: 'ops:read',
  };
  /** Every authorization URL the client sent the user to. */
  readonly authorizationUrls: URL[] = [];
  private savedTokens?: OAuthTokens;
  private verifier = '';
  private discovery?: OAuthDiscoveryState;

  clientInformation() {
    return { client_id: APP_CLIENT_ID };
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** The user's side of a redirect: logs in as `user` at the last authorization URL, consents, and hands the code back. */
async function consent(
  as: TestAuthorizationServer,
  provider: InteractiveAppProvider,
  transport: StreamableHTTPClientTransport,
  user: string,
) {
  const url = provider.authorizationUrls.at(-1);
  if (!url) throw new Error('the client asked for no authorization');
  const callback = await as.authorize(url, { accountId: user });
  expect(callback.searchParams.get('code'), `no code in ${callback.search}`).toBeTruthy();
  expect(callback.searchParams.get('state')).toBe(url.searchParams.get('state'));
  await transport.finishAuth(callback.searchParams);
}

/** Runs `action` on a connected client; when the client has to send the user to the authorization server, does so once, then retries. */
async function withUserConsent<T>(
  as: TestAuthorizationServer,
  provider: InteractiveAppProvider,
  transport: StreamableHTTPClientTransport,
  user: string,
  action: () => Promise<T>,
): Promise<{ result: T; redirects: number }> {
  try {
    return { result: await action(), redirects: 0 };
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  await consent(as, provider, transport, user);
  return { result: await action(), redirects: 1 };
}

const names = (tools: Array<{ name: string }>) => tools.map((tool) => tool.name).sort();
const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]?.text ?? '';

describe.each(ADAPTERS)(
  'the official MCP client with OAuth, against oidc-provider and nest-mcp with auth (%s)',
  (adapter) => {
    let as: TestAuthorizationServer;
    let ops: OpsApp;
    const clients: Client[] = [];

    /** An official client connected through `transport` (closed in afterAll). */
    async function connect(transport: StreamableHTTPClientTransport): Promise<Client> {
      const client = new Client(clientInfo, { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL } } });
      clients.push(client);
      await client.connect(transport);
      return client;
    }

    /**
     * An official client for `user` through the interactive app's OAuth flow: the first connection attempt is refused
     * (401), the user logs in and consents, and a new connection carries the token.
     */
    async function connectAsUser(provider: InteractiveAppProvider, user: string, exchanges: Exchange[] = []) {
      const open = () =>
        new StreamableHTTPClientTransport(ops.mcpUrl, { authProvider: provider, fetch: recordingFetch(exchanges) });
      const refused = open();
      await expect(connect(refused)).rejects.toBeInstanceOf(UnauthorizedError);
      await consent(as, provider, refused, user);
      const transport = open();
      return { client: await connect(transport), transport };
    }

    beforeAll(async () => {
      as = await startAuthorizationServer({
        scopes: SCOPES,
        confidentialClients: [SCRIPTS, VIEWER],
        publicClients: [{ clientId: APP_CLIENT_ID, redirectUris: [REDIRECT_URI] }],
      });
      ops = await startOpsApp(adapter, (resource) => ({
        resource,
        authorizationServers: [as.issuer],
        // No scopesSupported: with none in the challenge or the metadata, each client asks for the scope it wants.
        scopeHierarchy: OPS_SCOPE_HIERARCHY,
      }));
    });
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await ops?.app.close();
      await as?.close();
    });

    it('client credentials: 401 → metadata named by resource_metadata → token for this resource → lists and calls tools', async () => {
      const exchanges: Exchange[] = [];
      const provider = new ClientCredentialsProvider({
        ...SCRIPTS,
        scope: 'ops:read ops:write',
        expectedIssuer: as.issuer,
      });
      const client = await connect(
        new StreamableHTTPClientTransport(ops.mcpUrl, { authProvider: provider, fetch: recordingFetch(exchanges) }),
      );

      const { tools } = await client.listTools();
      expect(names(tools)).toEqual(['incident_report', 'list_services', 'scale_service', 'whoami']);
      expect(textOf(await client.callTool({ name: 'list_services', arguments: {} }))).toBe('checkout-api, search-api');
      const scaled = await client.callTool({ name: 'scale_service', arguments: { name: 'checkout-api', replicas: 4 } });
      expect(textOf(scaled)).toBe(`checkout-api scaled to 4 by ${SCRIPTS.clientId}`);
      expect(JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })))).toEqual({
        principal: SCRIPTS.clientId,
        scopes: ['ops:read', 'ops:write'],
        client: SCRIPTS.clientId,
      });

      // The first request had no token: 401 naming the metadata document; the client fetched exactly that document, then
      // the authorization server's metadata, then a token; every later request carried it.
      const metadataUrl = `${ops.mcpUrl.origin}${PRM_PREFIX}/mcp`;
      expect(exchanges[0]).toMatchObject({ method: 'POST', url: ops.mcpUrl.href, status: 401 });
      expect(exchanges[0].challenge).toBe(`Bearer resource_metadata="${metadataUrl}"`);
      expect(exchanges[1]).toMatchObject({ method: 'GET', url: metadataUrl, status: 200 });
      const tokenRequest = exchanges.findIndex((exchange) => exchange.url === `${as.issuer}/token`);
      expect(exchanges.slice(2, tokenRequest).every((exchange) => exchange.url.startsWith(as.origin))).toBe(true);
      expect(
        exchanges
          .slice(tokenRequest + 1)
          .every((exchange) => exchange.url === ops.mcpUrl.href && exchange.status === 200),
      ).toBe(true);
      expect(exchanges.filter((exchange) => exchange.status === 401)).toHaveLength(1);
    });

    it('authorization code + PKCE, end to end: the user logs in and consents, and the tool runs as that user', async () => {
      const provider = new InteractiveAppProvider();
      const { client } = await connectAsUser(provider, 'dana');
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(provider.authorizationUrls).toHaveLength(1);
      // The client asked for the scope the challenge named, for this resource (RFC 8707), with PKCE S256.
      const [authorization] = provider.authorizationUrls;
      expect(authorization.origin + authorization.pathname).toBe(`${as.issuer}/auth`);
      expect(authorization.searchParams.get('resource')).toBe(ops.resource);
      expect(authorization.searchParams.get('scope')).toBe('ops:read');
      expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
      expect(JSON.parse(textOf(result))).toEqual({ principal: 'dana', scopes: ['ops:read'], client: APP_CLIENT_ID });
      expect(textOf(await client.callTool({ name: 'list_services', arguments: {} }))).toBe('checkout-api, search-api');
      expect(ops.probe.calls).toContain('list_services dana');
    });

    it('step-up: a read token gets 403 insufficient_scope on a write tool; the client asks for ops:write and the call succeeds', async () => {
      const provider = new InteractiveAppProvider();
      const exchanges: Exchange[] = [];
      const { client, transport } = await connectAsUser(provider, 'erin', exchanges);
      expect(names((await client.listTools()).tools)).toEqual(['incident_report', 'list_services', 'whoami']);
      expect(provider.tokens()?.scope).toBe('ops:read');
      const before = ops.probe.calls.length;

      const { result, redirects } = await withUserConsent(as, provider, transport, 'erin', () =>
        client.callTool({ name: 'scale_service', arguments: { name: 'search-api', replicas: 2 } }),
      );
      expect(textOf(result)).toBe('search-api scaled to 2 by erin');
      expect(redirects).toBe(1);
      // The refusal named every scope the tool needs (class ops:read + method ops:write), and the method never ran then.
      const refusal = exchanges.find((exchange) => exchange.status === 403);
      expect(refusal?.challenge).toBe(
        `Bearer resource_metadata="${ops.mcpUrl.origin}${PRM_PREFIX}/mcp", scope="ops:read ops:write", error="insufficient_scope", ` +
          `error_description="Tool 'scale_service' needs the scopes: ops:read ops:write"`,
      );
      const stepUp = provider.authorizationUrls.at(-1)!;
      expect(stepUp.searchParams.get('scope')?.split(' ').sort()).toEqual(['ops:read', 'ops:write']);
      expect(provider.tokens()?.scope?.split(' ').sort()).toEqual(['ops:read', 'ops:write']);
      expect(ops.probe.calls.slice(before)).toEqual(['scale_service erin']);
    });

    it('two callers see different lists, and a hidden scope is refused with 403, not run', async () => {
      const admin = await connect(
        new StreamableHTTPClientTransport(ops.mcpUrl, {
          authProvider: new ClientCredentialsProvider({ ...SCRIPTS, scope: 'ops:admin', expectedIssuer: as.issuer }),
        }),
      );
      const viewer = await connect(
        new StreamableHTTPClientTransport(ops.mcpUrl, {
          authProvider: new ClientCredentialsProvider({ ...VIEWER, scope: 'ops:read', expectedIssuer: as.issuer }),
          onInsufficientScope: 'throw',
        }),
      );
      // ops:admin implies ops:write and ops:read (the hierarchy): the admin sees everything.
      expect(names((await admin.listTools()).tools)).toEqual([
        'decommission_service',
        'incident_report',
        'list_services',
        'scale_service',
        'whoami',
      ]);
      expect(names((await viewer.listTools()).tools)).toEqual(['incident_report', 'list_services', 'whoami']);
      expect(textOf(await admin.callTool({ name: 'decommission_service', arguments: {} }))).toBe(
        `decommissioned by ${SCRIPTS.clientId}`,
      );

      const before = ops.probe.calls.length;
      const refused = await viewer
        .callTool({ name: 'decommission_service', arguments: {} })
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ name: 'InsufficientScopeError', requiredScope: 'ops:read ops:admin' });
      expect(ops.probe.calls.length).toBe(before);
    });

    it('a task created by one principal is answered as unknown to another', async () => {
      const alice = await taskSession(ops.mcpUrl, await bearerOf(as, ops.resource, SCRIPTS, 'ops:read'));
      const bob = await taskSession(ops.mcpUrl, await bearerOf(as, ops.resource, VIEWER, 'ops:read'));
      const exec = await alice.session.callTool('incident_report', { ms: 60_000 }, { task: { preference: 'require' } });
      const taskId = exec.handle!.taskId;
      expect((await alice.session.task(taskId).snapshot()).status).toBe('working');

      const foreign = await bob.session
        .task(taskId)
        .snapshot()
        .catch((error: unknown) => error);
      const unknown = await bob.session
        .task(asTaskId('no-such-task-id-000000'))
        .snapshot()
        .catch((error: unknown) => error);
      expect(foreign).toMatchObject({ code: -32602 });
      expect((foreign as Error).message).toBe((unknown as Error).message);
      await expect(bob.session.task(taskId).cancel()).rejects.toMatchObject({ code: -32602 });
      expect((await alice.session.task(taskId).snapshot()).status).toBe('working');
      await exec.cancel();
      await bob.close();
      await alice.close();
    });
  },
);

describe.each(ADAPTERS)('opaque tokens, verified by introspection (%s)', (adapter) => {
  let as: TestAuthorizationServer;
  let ops: OpsApp;

  beforeAll(async () => {
    as = await startAuthorizationServer({ scopes: SCOPES, confidentialClients: [SCRIPTS], tokenFormat: 'opaque' });
    ops = await startOpsApp(adapter, (resource) => ({
      resource,
      authorizationServers: [as.issuer],
      scopeHierarchy: OPS_SCOPE_HIERARCHY,
      // No cache: a revocation counts from the next request (the cache is shown in auth-verifiers.e2e-spec.ts).
      introspection: { endpoint: as.endpoints.introspection, ...as.introspectionClient, cacheTtlMs: 0 },
    }));
  });
  afterAll(async () => {
    await ops?.app.close();
    await as?.close();
  });

  it('the official client works with an opaque token; once revoked, the token is refused with 401 invalid_token', async () => {
    let issued = 0;
    const provider = new ClientCredentialsProvider({ ...SCRIPTS, scope: 'ops:read', expectedIssuer: as.issuer });
    const saveTokens = provider.saveTokens.bind(provider);
    provider.saveTokens = (tokens) => (issued++, saveTokens(tokens));
    const client = new Client(clientInfo, { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL } } });
    await client.connect(new StreamableHTTPClientTransport(ops.mcpUrl, { authProvider: provider }));
    expect(textOf(await client.callTool({ name: 'list_services', arguments: {} }))).toBe('checkout-api, search-api');
    const token = provider.tokens()!.access_token;
    expect(token.split('.')).toHaveLength(1); // opaque: not a JWT

    await as.revoke(token, SCRIPTS.clientId);
    const refused = await mcpPost(ops.mcpUrl, {
      method: 'tools/call',
      params: { name: 'list_services', arguments: {} },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${ops.mcpUrl.origin}${PRM_PREFIX}/mcp", error="invalid_token", error_description="The token is not active (revoked, expired or unknown)"`,
    );
    expect(refused.text).not.toContain(token);

    // The official client meets the same 401, gets a new token by itself and goes on.
    expect(textOf(await client.callTool({ name: 'list_services', arguments: {} }))).toBe('checkout-api, search-api');
    expect(issued).toBe(2);
    expect(provider.tokens()!.access_token).not.toBe(token);
    await client.close();
  });
});

/** A client-credentials access token for `resource`. */
async function bearerOf(
  as: TestAuthorizationServer,
  resource: string,
  client: { clientId: string },
  scope: string,
): Promise<string> {
  return (await as.clientCredentialsToken({ resource, scope, clientId: client.clientId })).access_token;
}

/** An official client and an ext-tasks session on it, both sending `token`. */
async function taskSession(url: URL, token: string) {
  const client = new Client(clientInfo, { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL } } });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: { token: async () => token } }));
  const rawDispatch = extTasksRawDispatch(url, { authorization: `Bearer ${token}` });
  const session = createTaskSessionFromClient(client, {
    endpointId: await createTaskSessionEndpointId('nest-mcp-auth-e2e', { url: url.href }),
    rawDispatch,
    v2RequestFraming: { protocolVersion: PROTOCOL, clientInfo, clientCapabilities: {} },
    onInputRequest: createApplicationInputHandler({
      elicitation: async () => ({ action: 'decline' }),
      sampling: async () => {
        throw new Error('no sampling in these tests');
      },
      roots: async () => ({ roots: [] }),
    }),
  });
  return { session, close: async () => (await session.close(), await client.close()) };
}
