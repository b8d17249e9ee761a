import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { McpRegistry } from 'nest-mcp';
import { McpTestingClient, type McpTestingError } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_SUBJECT,
  internalForAdmins,
  SCOPE_HIERARCHY,
  ScopesModule,
  ScopesProbe,
} from '../fixtures/auth-scopes.fixture.js';
import { ADAPTERS, type AdapterName } from '../support/app.factory.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { mcpPost, type RawResponse } from '../support/raw-request.util.js';
import { freePort } from '../support/free-port.js';

/**
 * Issue #17, the handler side of authorization (MCP 2026-07-28 "Authorization" T-AUTH-03, 07, 09; caching;
 * tools/prompts/resources lists "per caller"): `@McpScopes` checked before guards with the configured hierarchy, 403
 * `insufficient_scope` naming every scope for step-up, lists filtered per caller (`cacheScope: "private"`, cursors over
 * the filtered list), the `visibility` hook hiding handlers exactly like unknown ones, and the principal in guards.
 * Over real HTTP on both adapters with tokens from a real authorization server (oidc-provider, client credentials),
 * and in-process through the testing kit's `caller`.
 */

const PRM_PATH = '/.well-known/oauth-protected-resource';
const SCOPES = ['team:ops', 'deploy:read', 'deploy:write', 'deploy:admin', 'docs:read', 'docs:admin'];
const ALPHA = { clientId: 'svc-alpha', clientSecret: 'alpha-secret-0123456789' };
const BETA = { clientId: 'svc-beta', clientSecret: 'beta-secret-0123456789' };
const ADMIN = { clientId: ADMIN_SUBJECT, clientSecret: 'admin-secret-0123456789' };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** The error of a response (for the Mcp-Param-* checks: raw posts send no Mcp-Param-Q header). */
function hiddenHeaderCheck(response: RawResponse): { code: number; message: string } {
  return (response.json as { error: { code: number; message: string } }).error;
}

/** Splits `Bearer k="v", …` into its scheme and parameters. */
function parseChallenge(value: string | null | undefined): { scheme: string; params: Record<string, string> } {
  expect(value, 'WWW-Authenticate').toBeTypeOf('string');
  const [, scheme, rest] = /^(\S+)\s+(.*)$/.exec(value!)!;
  const params: Record<string, string> = {};
  for (const match of rest.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g))
    params[match[1]] = match[2].replace(/\\(.)/g, '$1');
  return { scheme, params };
}

interface ScopesApp {
  app: INestApplication;
  origin: string;
  mcpUrl: URL;
  resource: string;
  probe: ScopesProbe;
  close(): Promise<void>;
}

let as: TestAuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer({ scopes: SCOPES, confidentialClients: [ALPHA, BETA, ADMIN] });
});
afterAll(async () => {
  await as?.close();
});

/** Serves `ScopesModule` with `auth` for `<origin>/mcp`, the hierarchy, the hook and a page size of 2. */
async function startScopesApp(adapter: AdapterName): Promise<ScopesApp> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const resource = `${origin}/mcp`;
  const moduleRef = await Test.createTestingModule({
    imports: [
      ScopesModule.serve({
        auth: {
          resource,
          authorizationServers: [as.issuer],
          scopesSupported: ['deploy:read'],
          scopeHierarchy: SCOPE_HIERARCHY,
        },
        visibility: internalForAdmins,
        pageSize: 2,
        cacheHints: { default: { ttlMs: 60_000, cacheScope: 'public' } },
      }),
    ],
  }).compile();
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  await app.listen(port, '127.0.0.1');
  return { app, origin, mcpUrl: new URL(resource), resource, probe: app.get(ScopesProbe), close: () => app.close() };
}

describe.each(ADAPTERS)('scopes and per-caller lists over HTTP with real tokens (%s)', (adapter) => {
  let server: ScopesApp;
  const tokens = new Map<string, string>();

  /** A client-credentials token of `client` for this server with `scope` (cached per client and scope). */
  async function token(client: { clientId: string; clientSecret: string }, scope: string): Promise<string> {
    const key = `${client.clientId} ${scope}`;
    if (!tokens.has(key)) {
      const { access_token, scope: granted } = await as.clientCredentialsToken({
        resource: server.resource,
        scope,
        ...client,
      });
      expect(granted?.split(' ').sort(), 'the authorization server granted what was asked').toEqual(
        scope.split(' ').sort(),
      );
      tokens.set(key, access_token);
    }
    return tokens.get(key)!;
  }

  const post = (
    bearer: string,
    method: string,
    params: Record<string, unknown> = {},
    id: number = 1,
  ): Promise<RawResponse> =>
    mcpPost(server.mcpUrl, { id, method, params, headers: { authorization: `Bearer ${bearer}` } });

  /** Every page of a list, checking that each carries `cacheScope: "private"`. */
  async function listAll(bearer: string, method: string, field: string): Promise<string[]> {
    const names: string[] = [];
    let cursor: unknown;
    for (let page = 0; page < 20; page++) {
      const response = await post(bearer, method, cursor === undefined ? {} : { cursor });
      expect(response.status, response.text).toBe(200);
      const result = (response.json as { result: Record<string, unknown> }).result;
      expect(result, `${method} page ${page}`).toMatchObject({ cacheScope: 'private', ttlMs: 60_000 });
      const items = result[field] as Array<{ name: string; uri?: string; uriTemplate?: string }>;
      expect(items.length).toBeLessThanOrEqual(2);
      names.push(...items.map((item) => item.uri ?? item.uriTemplate ?? item.name));
      cursor = result.nextCursor;
      if (cursor === undefined) return names;
    }
    throw new Error(`${method} never ended`);
  }

  beforeAll(async () => {
    server = await startScopesApp(adapter);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists differ between two callers with different scopes; every page is private and cursors count in the filtered list', async () => {
    const ops = await token(ALPHA, 'team:ops deploy:read');
    const writerWithoutTeam = await token(BETA, 'deploy:write docs:read');

    expect((await listAll(ops, 'tools/list', 'tools')).sort()).toEqual(['guarded', 'status', 'whoami']);
    // deploy:write without team:ops: the class-level scope is missing, so no DeployTools tool.
    expect((await listAll(writerWithoutTeam, 'tools/list', 'tools')).sort()).toEqual(['guarded', 'whoami']);

    expect((await listAll(ops, 'prompts/list', 'prompts')).sort()).toEqual(['hello']);
    expect((await listAll(writerWithoutTeam, 'prompts/list', 'prompts')).sort()).toEqual(['hello', 'runbook']);
    expect(await listAll(ops, 'resources/list', 'resources')).toEqual(['docs://welcome']);
    expect((await listAll(writerWithoutTeam, 'resources/list', 'resources')).sort()).toEqual([
      'docs://handbook',
      'docs://welcome',
    ]);
    expect(await listAll(ops, 'resources/templates/list', 'resourceTemplates')).toEqual([]);
    expect(await listAll(writerWithoutTeam, 'resources/templates/list', 'resourceTemplates')).toEqual([
      'docs://pages/{id}',
    ]);

    // The admin sees the hook's internal handlers too, and every scoped one (deploy:admin implies write and read).
    const admin = await token(ADMIN, 'team:ops deploy:admin docs:admin');
    expect((await listAll(admin, 'tools/list', 'tools')).sort()).toEqual([
      'deploy',
      'guarded',
      'internal_debug',
      'rollout',
      'status',
      'whoami',
    ]);
    expect((await listAll(admin, 'prompts/list', 'prompts')).sort()).toEqual(['hello', 'internal_notes', 'runbook']);
    expect((await listAll(admin, 'resources/templates/list', 'resourceTemplates')).sort()).toEqual([
      'docs://pages/{id}',
      'internal://logs/{day}',
    ]);
  });

  it('the official MCP client (ClientCredentialsProvider): callers see different lists, and a 403 makes it step up by itself', async () => {
    const session = async (client: { clientId: string; clientSecret: string }) => {
      // The client asks for the scopes the 401 challenge names (auth.scopesSupported: deploy:read), as the spec says.
      const provider = new ClientCredentialsProvider({ ...client, expectedIssuer: as.issuer });
      const mcp = new Client(
        { name: 'scopes-e2e', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await mcp.connect(new StreamableHTTPClientTransport(server.mcpUrl, { authProvider: provider }));
      const names = async () => {
        const all: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await mcp.listTools(cursor === undefined ? {} : { cursor });
          all.push(...page.tools.map((tool) => tool.name));
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        return all.sort();
      };
      return { mcp, provider, names };
    };
    const alpha = await session(ALPHA);
    const admin = await session(ADMIN);
    try {
      expect(await alpha.names()).toEqual(['guarded', 'whoami']);
      expect(await admin.names()).toEqual(['guarded', 'internal_debug', 'whoami']);
      const firstToken = alpha.provider.tokens()?.access_token;
      // 403 insufficient_scope, scope="team:ops deploy:write": the client gets a token with those scopes and retries.
      const result = await alpha.mcp.callTool({ name: 'deploy', arguments: { release: 'r3' } });
      expect((result.content as Array<{ text: string }>)[0].text).toBe(`deployed r3 by ${ALPHA.clientId}`);
      const stepped = alpha.provider.tokens()?.access_token;
      expect(stepped).toBeTypeOf('string');
      expect(stepped).not.toBe(firstToken);
      // (The client keeps its list for ttlMs; asked directly, the stepped-up token sees the deploy tools.)
      expect((await listAll(stepped!, 'tools/list', 'tools')).sort()).toEqual([
        'deploy',
        'guarded',
        'rollout',
        'status',
        'whoami',
      ]);
    } finally {
      await alpha.mcp.close();
      await admin.mcp.close();
    }
  });

  it("a cursor is an offset in the caller's own filtered list: past its end it is refused, never a peek at another caller's list", async () => {
    const admin = await token(ADMIN, 'team:ops deploy:admin docs:admin');
    const first = (await post(admin, 'tools/list')).json as { result: { nextCursor: string } };
    const third = (await post(admin, 'tools/list', { cursor: first.result.nextCursor })).json as {
      result: { nextCursor: string };
    };
    const lastPage = third.result.nextCursor; // offset 4: the admin's 5th and 6th tools
    const ops = await token(ALPHA, 'team:ops deploy:read');
    const refused = await post(ops, 'tools/list', { cursor: lastPage });
    expect(refused.json).toMatchObject({ error: { code: -32602, message: 'Invalid params: invalid cursor' } });
  });

  it('insufficient scope → 403 with every scope the tool needs in the challenge; a broader token (step-up) then succeeds; the hierarchy is honoured', async () => {
    const reader = await token(ALPHA, 'team:ops deploy:read');
    const before = server.probe.ran.length;
    const guardedBefore = server.probe.guarded.length;
    const refused = await post(reader, 'tools/call', { name: 'deploy', arguments: { release: 'r1' } });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32600, data: { requiredScopes: ['team:ops', 'deploy:write'] } },
    });
    const challenge = parseChallenge(refused.headers.get('www-authenticate'));
    expect(challenge.scheme).toBe('Bearer');
    expect(challenge.params).toMatchObject({
      error: 'insufficient_scope',
      // All of them, not only the missing deploy:write (T-AUTH-03: no drip-feeding).
      scope: 'team:ops deploy:write',
      resource_metadata: `${server.origin}${PRM_PATH}/mcp`,
    });
    expect(challenge.params.error_description).toMatch(/deploy/);
    // Refused before argument validation too: a bad call answers the same 403.
    const badArguments = await post(reader, 'tools/call', { name: 'deploy', arguments: { release: 42 } });
    expect(badArguments.status).toBe(403);
    expect(server.probe.ran.length, 'nothing ran').toBe(before);
    expect(server.probe.guarded.length, 'refused before the guards').toBe(guardedBefore);

    // Step-up: the client asks for what the challenge named; deploy:admin satisfies deploy:write through the hierarchy.
    const stepped = await token(ALPHA, `${challenge.params.scope.replace('deploy:write', 'deploy:admin')}`);
    const done = await post(stepped, 'tools/call', { name: 'deploy', arguments: { release: 'r1' } });
    expect(done.status, done.text).toBe(200);
    expect(done.json).toMatchObject({
      result: { content: [{ type: 'text', text: `deployed r1 by ${ALPHA.clientId}` }] },
    });
    expect(server.probe.guarded.slice(guardedBefore)).toEqual(['deploy']);
  });

  it('a token with the narrower method scope but not the class scope is refused with both (class + method scopes combine)', async () => {
    const writer = await token(BETA, 'deploy:write docs:read');
    const refused = await post(writer, 'tools/call', { name: 'status' });
    expect(refused.status).toBe(403);
    expect(parseChallenge(refused.headers.get('www-authenticate')).params.scope).toBe('team:ops deploy:read');
  });

  it('prompts, resources and templates: 403 with their scopes without docs:read, served with it', async () => {
    const ops = await token(ALPHA, 'team:ops deploy:read');
    const docs = await token(BETA, 'deploy:write docs:read');
    for (const [method, params] of [
      ['prompts/get', { name: 'runbook', arguments: { topic: 'deploy' } }],
      ['resources/read', { uri: 'docs://handbook' }],
      ['resources/read', { uri: 'docs://pages/faq' }],
    ] as const) {
      const refused = await post(ops, method, params);
      expect({ method, status: refused.status }).toEqual({ method, status: 403 });
      expect(parseChallenge(refused.headers.get('www-authenticate')).params).toMatchObject({
        error: 'insufficient_scope',
        scope: 'docs:read',
      });
      const served = await post(docs, method, params);
      expect({ method, status: served.status, body: served.text.slice(0, 200) }).toMatchObject({ method, status: 200 });
    }
    // A read only some callers may make is private, whatever the configured hints (public here).
    expect((await post(docs, 'resources/read', { uri: 'docs://pages/faq' })).json).toMatchObject({
      result: { contents: [{ text: 'page faq' }], ttlMs: 60_000, cacheScope: 'private' },
    });
  });

  it('a handler the visibility hook hides answers byte for byte like an unknown one (tools/call, prompts/get, resources/read, completion)', async () => {
    const ops = await token(ALPHA, 'team:ops deploy:read');
    /** The answer with the name replaced, so that a hidden name and an unknown one can be compared byte for byte. */
    const answer = async (method: string, params: Record<string, unknown>, name: string) => {
      const response = await post(ops, method, params, 7);
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        challenge: response.headers.get('www-authenticate'),
        body: response.text.replaceAll(name, '<NAME>'),
      };
    };
    const cases: Array<[string, (name: string) => Record<string, unknown>, string, string]> = [
      ['tools/call', (name) => ({ name, arguments: { q: 'x' } }), 'internal_debug', 'internal_debuh'],
      ['prompts/get', (name) => ({ name }), 'internal_notes', 'internal_notez'],
      ['resources/read', (uri) => ({ uri }), 'internal://config', 'internal://confik'],
      [
        'completion/complete',
        (name) => ({ ref: { type: 'ref/prompt', name }, argument: { name: 'topic', value: '' } }),
        'internal_notes',
        'internal_notez',
      ],
      [
        'completion/complete',
        (uri) => ({ ref: { type: 'ref/resource', uri }, argument: { name: 'day', value: '' } }),
        'internal://logs/{day}',
        'internal://logz/{day}',
      ],
      // Scopes hide from completion as from lists: runbook needs docs:read.
      [
        'completion/complete',
        (name) => ({ ref: { type: 'ref/prompt', name }, argument: { name: 'topic', value: '' } }),
        'runbook',
        'runbooc',
      ],
    ];
    for (const [method, params, hidden, unknown] of cases) {
      const hiddenAnswer = await answer(method, params(hidden), hidden);
      const unknownAnswer = await answer(method, params(unknown), unknown);
      expect(hiddenAnswer, `${method} ${hidden}`).toEqual(unknownAnswer);
      expect(hiddenAnswer.body).toContain('"error"');
    }
    // Its Mcp-Param-Q header is not checked for a caller that may not see it (a -32020 would reveal it): unknown tool.
    expect(
      hiddenHeaderCheck(await post(ops, 'tools/call', { name: 'internal_debug', arguments: { q: 'x' } })),
    ).toMatchObject({ code: -32602 });
    const adminCaller = await token(ADMIN, 'team:ops');
    expect(
      hiddenHeaderCheck(await post(adminCaller, 'tools/call', { name: 'internal_debug', arguments: { q: 'x' } })),
    ).toMatchObject({ code: -32020 });
    // A URI under a hidden template is not found either, exactly like one no template matches.
    const hiddenRead = await answer('resources/read', { uri: 'internal://logs/monday' }, 'internal://logs/monday');
    expect(hiddenRead).toEqual(
      await answer('resources/read', { uri: 'internal://nothing/monday' }, 'internal://nothing/monday'),
    );
    // The admin gets them.
    const admin = await token(ADMIN, 'team:ops');
    expect((await post(admin, 'tools/call', { name: 'internal_debug', arguments: {} })).json).toMatchObject({
      result: { content: [{ text: 'debug' }] },
    });
    expect((await post(admin, 'resources/read', { uri: 'internal://logs/monday' })).json).toMatchObject({
      result: { contents: [{ text: 'logs monday' }] },
    });
  });

  it('guards see the verified principal and token through McpExecutionContext; handlers through @McpPrincipal / @McpToken / ctx', async () => {
    const ops = await token(ALPHA, 'team:ops deploy:read');
    const seen = server.probe.guardSaw.length;
    const guarded = await post(ops, 'tools/call', { name: 'guarded' });
    expect(guarded.json).toMatchObject({ result: { content: [{ text: 'guarded ok' }] } });
    expect(server.probe.guardSaw.slice(seen)).toEqual([
      { principal: ALPHA.clientId, scopes: expect.arrayContaining(['team:ops', 'deploy:read']) },
    ]);
    const whoami = (await post(ops, 'tools/call', { name: 'whoami' })).json as {
      result: { content: Array<{ text: string }> };
    };
    expect(JSON.parse(whoami.result.content[0].text)).toEqual({
      principal: ALPHA.clientId,
      scopes: expect.arrayContaining(['team:ops', 'deploy:read']),
      same: true,
    });
  });

  it('server/discover shows each caller only the features it may use, privately; the methods still exist for it', async () => {
    type Discover = { result: { capabilities: Record<string, unknown>; cacheScope: string } };
    // Without team:ops (DeployTools' class scope) the caller sees only the public tools: no task tool, so no tasks
    // extension — though the server has one.
    const writer = await token(BETA, 'deploy:write docs:read');
    const outsider = ((await post(writer, 'server/discover')).json as Discover).result;
    expect(outsider.capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {}, completions: {} });
    expect(outsider.capabilities).not.toHaveProperty('extensions');
    expect(outsider.cacheScope).toBe('private');
    // With team:ops and deploy:write it sees the deploy tools, and the task tool brings the tasks extension.
    const deployer = await token(BETA, 'team:ops deploy:write docs:read');
    const member = ((await post(deployer, 'server/discover')).json as Discover).result;
    expect(member.capabilities).toMatchObject({
      tools: {},
      prompts: {},
      resources: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
    expect(member.cacheScope).toBe('private');
  });

  it('2025-11-25 sessions: lists filtered per caller, 403 insufficient_scope with the challenge, hidden == unknown', async () => {
    const reader = await token(ALPHA, 'team:ops deploy:read');
    const legacy = async (headers: Record<string, string>, message: Record<string, unknown>) => {
      const response = await fetch(server.mcpUrl, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          authorization: `Bearer ${reader}`,
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', ...message }),
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    };
    const init = await legacy(
      {},
      {
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'scopes-e2e', version: '1' } },
      },
    );
    expect(init.status, init.text).toBe(200);
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await legacy(session, { method: 'notifications/initialized' });
    const list = JSON.parse((await legacy(session, { id: 2, method: 'tools/list' })).text) as {
      result: { tools: Array<{ name: string }>; nextCursor?: string };
    };
    expect(list.result.tools.map((tool) => tool.name)).toEqual(['guarded', 'status']);
    const refused = await legacy(session, {
      id: 3,
      method: 'tools/call',
      params: { name: 'deploy', arguments: { release: 'r1' } },
    });
    expect(refused.status).toBe(403);
    expect(parseChallenge(refused.headers.get('www-authenticate')).params).toMatchObject({
      error: 'insufficient_scope',
      scope: 'team:ops deploy:write',
    });
    const hidden = await legacy(session, {
      id: 4,
      method: 'tools/call',
      params: { name: 'internal_debug', arguments: {} },
    });
    const unknown = await legacy(session, {
      id: 4,
      method: 'tools/call',
      params: { name: 'internal_debuh', arguments: {} },
    });
    expect({ status: hidden.status, body: hidden.text.replaceAll('internal_debug', '<NAME>') }).toEqual({
      status: unknown.status,
      body: unknown.text.replaceAll('internal_debuh', '<NAME>'),
    });
  });

  it('the testing kit over HTTP carries the challenge of a refusal', async () => {
    const reader = await token(ALPHA, 'team:ops deploy:read');
    const client = await McpTestingClient.connect(server.mcpUrl, { headers: { authorization: `Bearer ${reader}` } });
    const error = (await client
      .callTool('deploy', { release: 'r2' })
      .catch((caught: unknown) => caught)) as McpTestingError;
    expect(error).toMatchObject({ httpStatus: 403, code: -32600 });
    expect(parseChallenge(error.wwwAuthenticate).params).toMatchObject({
      error: 'insufficient_scope',
      scope: 'team:ops deploy:write',
    });
  });
});

describe("scopes in process: the testing kit's caller", () => {
  let app: INestApplication;
  let client: McpTestingClient;
  let probe: ScopesProbe;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ScopesModule.serve({
          auth: {
            resource: 'http://127.0.0.1:1/mcp',
            authorizationServers: ['http://127.0.0.1:2'],
            scopeHierarchy: SCOPE_HIERARCHY,
          },
          visibility: internalForAdmins,
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    client = await McpTestingClient.create(app);
    probe = app.get(ScopesProbe);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('client.as({ subject, scopes }) filters lists, refuses with the challenge HTTP would send, and steps up', async () => {
    const reader = client.as({ subject: 'ana', scopes: ['team:ops', 'deploy:read'] });
    expect((await reader.listTools()).map((tool) => tool.name).sort()).toEqual(['guarded', 'status', 'whoami']);
    const error = (await reader
      .callTool('deploy', { release: 'r1' })
      .catch((caught: unknown) => caught)) as McpTestingError;
    expect(error).toMatchObject({
      httpStatus: 403,
      code: -32600,
      data: { requiredScopes: ['team:ops', 'deploy:write'] },
    });
    expect(parseChallenge(error.wwwAuthenticate).params).toMatchObject({
      error: 'insufficient_scope',
      scope: 'team:ops deploy:write',
      resource_metadata: `http://127.0.0.1:1${PRM_PATH}/mcp`,
    });
    const admin = client.as({ subject: 'ana', scopes: ['team:ops', 'deploy:admin'] });
    expect((await admin.callTool('deploy', { release: 'r1' })).text()).toBe('deployed r1 by ana');
    expect(JSON.parse((await reader.callTool('whoami')).text())).toEqual({
      principal: 'ana',
      scopes: ['team:ops', 'deploy:read'],
      same: true,
    });
  });

  it('without a caller, an in-process call is a local one (like stdio): scopes are not enforced, the hook still applies', async () => {
    expect((await client.listTools()).map((tool) => tool.name).sort()).toEqual([
      'deploy',
      'guarded',
      'rollout',
      'status',
      'whoami',
    ]);
    expect((await client.callTool('deploy', { release: 'r9' })).text()).toBe('deployed r9 by undefined');
    await expect(client.callTool('internal_debug')).rejects.toMatchObject({
      code: -32602,
      message: 'Unknown tool: internal_debug',
    });
  });

  it('a task tool is checked when the task is created; its rounds run without a token as authorized', async () => {
    const reader = client.as({ subject: 'ana', scopes: ['team:ops', 'deploy:read'] });
    const before = probe.ran.length;
    await expect(reader.startTask('rollout', {}, { capabilities: TASKS })).rejects.toMatchObject({ httpStatus: 403 });
    expect(probe.ran.length, 'no task ran').toBe(before);
    const writer = client.as({ subject: 'ana', scopes: ['team:ops', 'deploy:write'] });
    const task = await writer.startTask('rollout');
    const result = await task.result();
    expect(result.text()).toMatch(/^rolled out \(task .+\)$/);
  });

  it('runtime registration takes scopes too', async () => {
    app.get(McpRegistry).registerTool({ name: 'purge' }, () => 'purged', { scopes: ['deploy:admin'] });
    try {
      const reader = client.as({ subject: 'ana', scopes: ['deploy:write'] });
      expect((await reader.listTools()).map((tool) => tool.name)).not.toContain('purge');
      await expect(reader.callTool('purge')).rejects.toMatchObject({ httpStatus: 403 });
      expect((await client.as({ subject: 'ana', scopes: ['deploy:admin'] }).callTool('purge')).text()).toBe('purged');
    } finally {
      app.get(McpRegistry).removeTool('purge');
    }
  });
});

describe.each(ADAPTERS)(
  '@McpScopes on an HTTP server without auth (%s): fail closed, and said at startup',
  (adapter) => {
    let app: INestApplication;
    let mcpUrl: URL;
    const warnings: string[] = [];
    const logger: LoggerService = {
      log: () => undefined,
      error: () => undefined,
      warn: (message: unknown) => void warnings.push(String(message)),
    };

    beforeAll(async () => {
      const moduleRef = await Test.createTestingModule({ imports: [ScopesModule.serve({})] }).compile();
      app =
        adapter === 'fastify'
          ? moduleRef.createNestApplication(new FastifyAdapter(), { logger })
          : moduleRef.createNestApplication({ logger });
      await app.listen(0, '127.0.0.1');
      mcpUrl = new URL('/mcp', (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1'));
    });
    afterAll(async () => {
      await app?.close();
    });

    it('warns once, naming the scoped handlers', () => {
      const warning = warnings.filter((line) => line.includes('@McpScopes'));
      expect(warning).toHaveLength(1);
      expect(warning[0]).toMatch(
        /^tool "deploy", .* require OAuth scopes \(@McpScopes\) but the "auth" option is not set/,
      );
    });

    it('an HTTP caller (no token possible) does not see them and is refused with a plain 403', async () => {
      const list = await mcpPost(mcpUrl, { method: 'tools/list' });
      const names = (list.json as { result: { tools: Array<{ name: string }>; cacheScope: string } }).result.tools.map(
        (tool) => tool.name,
      );
      expect(names.sort()).toEqual(['guarded', 'internal_debug', 'whoami']);
      expect((list.json as { result: { cacheScope: string } }).result.cacheScope).toBe('private');
      const refused = await mcpPost(mcpUrl, { method: 'tools/call', params: { name: 'status', arguments: {} } });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toBeNull();
      expect(refused.json).toMatchObject({
        error: { code: -32600, data: { requiredScopes: ['team:ops', 'deploy:read'] } },
      });
    });
  },
);
