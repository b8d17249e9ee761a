import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { Server } from 'node:http';
import { McpPublisher, McpRegistry, type McpModuleOptions } from 'nest-mcp';
import { InMemoryEventBus } from 'nest-mcp/backend';
import { McpTestingClient } from 'nest-mcp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpSubscriptionsService } from '../../libs/mcp/src/subscriptions/subscriptions.service.js';
import {
  internalForAdmin,
  LISTEN_ADMIN,
  ListenVisibilityModule,
  OpenResources,
} from '../fixtures/auth-listen.fixture.js';
import { ADAPTERS, type AdapterName } from '../support/app.factory.js';
import { legacyPost, type LegacyStream, openLegacyGet, rawInitialize } from '../support/legacy-client.factory.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { openStream, type OpenStream } from '../support/sse-stream.reader.js';
import { until } from '../support/wait.util.js';
import { freePort } from '../support/free-port.js';

/**
 * Issue #17, items 4 and 5 (per-caller visibility; the verified principal binds listen deliveries): change
 * notifications follow what the caller may read. A `subscriptions/listen` filter keeps only the URIs a resource or
 * template the caller may see serves (`@McpScopes`, the `visibility` hook — an unknown URI is dropped too while
 * anything is hidden, so the acknowledgment tells neither apart), and no `notifications/resources/updated` (nor its
 * resync repetition) reaches it for a URI a hidden handler serves, sub-resources of a followed URI included. A
 * 2025-11-25 `resources/subscribe` of a hidden URI is answered like one of an unknown URI and never delivered.
 * Over real HTTP on both adapters, with client-credentials tokens from a real authorization server (oidc-provider).
 */

const SUB = 'io.modelcontextprotocol/subscriptionId';
const UPDATED = 'notifications/resources/updated';
const OUTSIDER = { clientId: 'svc-outsider', clientSecret: 'outsider-secret-0123456789' };
const READER = { clientId: 'svc-reader', clientSecret: 'reader-secret-0123456789' };
const ADMIN = { clientId: LISTEN_ADMIN, clientSecret: 'admin-secret-0123456789' };

/** Every URI of the fixture a listener may ask for, and one nothing serves. */
const ASKED = [
  'docs://handbook',
  'docs://pages/intro',
  'internal://config',
  'internal://logs/monday',
  'nothing://here',
  'docs://welcome',
];

interface ListenApp {
  app: INestApplication;
  mcpUrl: URL;
  resource: string;
  publisher: McpPublisher;
  registry: McpRegistry;
  subs: McpSubscriptionsService;
  close(): Promise<void>;
}

/** Serves the fixture on `adapter` at `<origin>/mcp`; `options(resource)` gives the module options. */
async function startListenApp(
  adapter: AdapterName,
  options: (resource: string) => Omit<McpModuleOptions, 'name' | 'version'>,
  handlers?: Parameters<typeof ListenVisibilityModule.serve>[1],
): Promise<ListenApp> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const moduleRef = await Test.createTestingModule({
    imports: [ListenVisibilityModule.serve(options(resource), handlers)],
  }).compile();
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  await app.listen(port, '127.0.0.1');
  return {
    app,
    mcpUrl: new URL(resource),
    resource,
    publisher: app.get(McpPublisher),
    registry: app.get(McpRegistry),
    subs: app.get(McpSubscriptionsService),
    close: async () => {
      // Undici may keep a spare connection after an aborted body; every stream is closed by now.
      (app.getHttpServer() as Server).closeAllConnections();
      await app.close();
    },
  };
}

/** What a listen stream received after its acknowledgement, as `method uri`. */
const told = (stream: OpenStream | LegacyStream, from = 1) =>
  stream.messages.slice(from).map((m) => [m.method, m.params?.uri].filter(Boolean).join(' '));

/** The URIs a listen stream's acknowledgement confirms (none: the key is absent). */
async function acknowledgedUris(stream: OpenStream, id: string): Promise<string[] | undefined> {
  expect(stream.status, stream.raw).toBe(200);
  const [ack] = await stream.nextFrames(1);
  expect(ack.method).toBe('notifications/subscriptions/acknowledged');
  expect(ack.params!._meta![SUB]).toBe(id);
  return (ack.params!.notifications as { resourceSubscriptions?: string[] }).resourceSubscriptions;
}

let as: TestAuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer({
    scopes: ['docs:read', 'docs:admin', 'team:ops'],
    confidentialClients: [OUTSIDER, READER, ADMIN],
  });
});
afterAll(async () => {
  await as?.close();
});

describe.each(ADAPTERS)('listen deliveries follow per-caller visibility, with real tokens (%s)', (adapter) => {
  const bus = new InMemoryEventBus();
  let server: ListenApp;
  const tokens = new Map<string, string>();
  const streams: Array<OpenStream | LegacyStream> = [];
  const sessions: string[] = [];

  /** A client-credentials token of `client` for this server with `scope` (cached). */
  async function token(client: { clientId: string; clientSecret: string }, scope: string): Promise<string> {
    const key = `${client.clientId} ${scope}`;
    if (!tokens.has(key)) {
      const { access_token, scope: granted } = await as.clientCredentialsToken({
        resource: server.resource,
        scope,
        ...client,
      });
      expect(granted?.split(' ').sort()).toEqual(scope.split(' ').sort());
      tokens.set(key, access_token);
    }
    return tokens.get(key)!;
  }
  const outsider = () => token(OUTSIDER, 'team:ops');
  const reader = () => token(READER, 'docs:read');
  // docs:admin implies docs:read (auth.scopeHierarchy); the hook shows this subject the internal handlers.
  const admin = () => token(ADMIN, 'docs:admin');

  async function listenAs(bearer: string, id: string, notifications: Record<string, unknown>): Promise<OpenStream> {
    const stream = await openStream(server.mcpUrl, {
      method: 'subscriptions/listen',
      id,
      params: { notifications },
      headers: { authorization: `Bearer ${bearer}` },
    });
    streams.push(stream);
    return stream;
  }

  /** A 2025-11-25 session of `bearer` with its GET stream open. */
  async function sessionOf(bearer: string): Promise<{
    sessionId: string;
    get: LegacyStream;
    post: (body: Record<string, unknown>) => ReturnType<typeof legacyPost>;
  }> {
    const headers = { authorization: `Bearer ${bearer}` };
    const { sessionId, response } = await rawInitialize(server.mcpUrl, { headers });
    expect(response.status, response.text).toBe(200);
    sessions.push(sessionId);
    const get = await openLegacyGet(server.mcpUrl, { sessionId, headers });
    expect(get.status).toBe(200);
    streams.push(get);
    return { sessionId, get, post: (body) => legacyPost(server.mcpUrl, body, { sessionId, headers }) };
  }

  beforeAll(async () => {
    server = await startListenApp(adapter, (resource) => ({
      auth: { resource, authorizationServers: [as.issuer], scopeHierarchy: { 'docs:admin': ['docs:read'] } },
      visibility: internalForAdmin,
      eventBus: bus,
    }));
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) {
      stream.close();
      await stream.ended;
      expect(stream.problems).toEqual([]);
    }
    sessions.length = 0;
    await until(() => server.subs.openStreams === 0, 2_000, 'the listen streams to end');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a caller without the scope is not acknowledged a scoped resource, a scoped template URI or a hook-hidden one, and hears none of them', async () => {
    const filter = { resourceSubscriptions: ASKED };
    const [o, r, a] = [
      await listenAs(await outsider(), 'o', filter),
      await listenAs(await reader(), 'r', filter),
      await listenAs(await admin(), 'a', filter),
    ];

    // Hidden and unknown URIs are dropped alike: the acknowledgment does not tell them apart.
    expect(await acknowledgedUris(o, 'o')).toEqual(['docs://welcome']);
    expect(await acknowledgedUris(r, 'r')).toEqual(['docs://handbook', 'docs://pages/intro', 'docs://welcome']);
    expect(await acknowledgedUris(a, 'a')).toEqual([
      'docs://handbook',
      'docs://pages/intro',
      'internal://config',
      'internal://logs/monday',
      'docs://welcome',
    ]);

    // Every URI is updated, the open one last: one stream receives in publish order, so it is the barrier.
    for (const uri of ASKED) await server.publisher.resourceUpdated(uri);
    for (const stream of [o, r, a])
      await stream.waitFor((m) => m.params?.uri === 'docs://welcome', 'the update of the open resource');
    expect(told(o)).toEqual([`${UPDATED} docs://welcome`]);
    expect(told(r)).toEqual([
      `${UPDATED} docs://handbook`,
      `${UPDATED} docs://pages/intro`,
      `${UPDATED} docs://welcome`,
    ]);
    expect(told(a)).toEqual(ASKED.filter((uri) => uri !== 'nothing://here').map((uri) => `${UPDATED} ${uri}`));
    for (const message of o.messages.slice(1)) expect(message.params?._meta).toEqual({ [SUB]: 'o' });
  });

  it('a followed URI covers its sub-resources only where the caller may read them; unknown children are still told', async () => {
    const filter = { resourceSubscriptions: ['files://shared'] };
    const o = await listenAs(await outsider(), 'o', filter);
    const r = await listenAs(await reader(), 'r', filter);
    expect(await acknowledgedUris(o, 'o')).toEqual(['files://shared']);
    expect(await acknowledgedUris(r, 'r')).toEqual(['files://shared']);

    await server.publisher.resourceUpdated('files://shared/private/salaries.csv'); // served by a docs:read template
    await server.publisher.resourceUpdated('files://shared/readme.txt'); // served by nothing: reveals no handler
    await server.publisher.resourceUpdated('files://shared');
    for (const stream of [o, r])
      await stream.waitFor((m) => m.params?.uri === 'files://shared', 'the update of the folder');
    expect(told(o)).toEqual([`${UPDATED} files://shared/readme.txt`, `${UPDATED} files://shared`]);
    expect(told(r)).toEqual([
      `${UPDATED} files://shared/private/salaries.csv`,
      `${UPDATED} files://shared/readme.txt`,
      `${UPDATED} files://shared`,
    ]);
  });

  it('a resync repeats only the URIs the caller may read', async () => {
    const filter = { resourcesListChanged: true, resourceSubscriptions: [...ASKED, 'files://shared'] };
    const o = await listenAs(await outsider(), 'o', filter);
    const r = await listenAs(await reader(), 'r', filter);
    await o.nextFrames(1);
    await r.nextFrames(1);
    bus.publish({ type: 'resync' });
    await o.nextFrames(4);
    await r.nextFrames(6);
    expect(told(o)).toEqual([
      'notifications/resources/list_changed',
      `${UPDATED} docs://welcome`,
      `${UPDATED} files://shared`,
    ]);
    expect(told(r)).toEqual([
      'notifications/resources/list_changed',
      `${UPDATED} docs://handbook`,
      `${UPDATED} docs://pages/intro`,
      `${UPDATED} docs://welcome`,
      `${UPDATED} files://shared`,
    ]);
  });

  it('a resource registered at run time with scopes is no longer told to a stream that followed its URI as a child', async () => {
    const o = await listenAs(await outsider(), 'o', { resourceSubscriptions: ['files://shared'] });
    await o.nextFrames(1);
    await server.publisher.resourceUpdated('files://shared/late');
    await o.waitFor((m) => m.params?.uri === 'files://shared/late', 'the child while nothing serves it');
    server.registry.registerResource({ uri: 'files://shared/late', mimeType: 'text/plain' }, () => 'late', {
      scopes: ['docs:read'],
    });
    try {
      await server.publisher.resourceUpdated('files://shared/late');
      await server.publisher.resourceUpdated('files://shared');
      await o.waitFor((m) => m.params?.uri === 'files://shared', 'the folder update after the registration');
      expect(told(o)).toEqual([`${UPDATED} files://shared/late`, `${UPDATED} files://shared`]);
    } finally {
      server.registry.removeResource('files://shared/late');
    }
  });

  it('2025-11-25: resources/subscribe of a hidden URI is answered like one of an unknown URI, and never delivered', async () => {
    const session = await sessionOf(await outsider());
    const answers: Record<string, { status: number; text: string }> = {};
    for (const uri of ASKED) {
      const response = await session.post({ id: 7, method: 'resources/subscribe', params: { uri } });
      answers[uri] = { status: response.status, text: response.text };
    }
    // Hidden by scope, hidden by the hook, unknown, open: one answer for all.
    for (const uri of ASKED) expect(answers[uri], uri).toEqual(answers['nothing://here']);
    expect(JSON.parse(answers['nothing://here'].text)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });

    for (const uri of ASKED) await server.publisher.resourceUpdated(uri);
    await session.get.waitFor((m) => m.params?.uri === 'docs://welcome', 'the update of the open resource');
    expect(told(session.get, 0)).toEqual([`${UPDATED} nothing://here`, `${UPDATED} docs://welcome`]);
  });

  it('2025-11-25: a resync repeats only the subscriptions the caller may read, not hidden or unknown ones', async () => {
    const session = await sessionOf(await outsider());
    // Hidden by scope, by the hook, unknown, open: only the open one is repeated (hidden and unknown look alike).
    for (const uri of ['docs://handbook', 'internal://config', 'nothing://here', 'docs://welcome']) {
      expect((await session.post({ id: 1, method: 'resources/subscribe', params: { uri } })).status).toBe(200);
    }
    bus.publish({ type: 'resync' });
    // A real update afterwards is the barrier: the session's stream receives in order.
    await server.publisher.resourceUpdated('docs://welcome');
    await session.get.nextFrames(3);
    expect(told(session.get, 0)).toEqual([
      'notifications/resources/list_changed',
      `${UPDATED} docs://welcome`,
      `${UPDATED} docs://welcome`,
    ]);
  });

  it('2025-11-25: a caller with the scope (and the admin, through the hook) hears what it subscribed to', async () => {
    const read = await sessionOf(await reader());
    const adm = await sessionOf(await admin());
    for (const session of [read, adm]) {
      for (const uri of ['docs://handbook', 'docs://pages', 'internal://config', 'docs://welcome']) {
        expect((await session.post({ id: 1, method: 'resources/subscribe', params: { uri } })).status).toBe(200);
      }
    }
    for (const uri of ['docs://handbook', 'docs://pages/intro', 'internal://config', 'docs://welcome'])
      await server.publisher.resourceUpdated(uri);
    for (const session of [read, adm])
      await session.get.waitFor((m) => m.params?.uri === 'docs://welcome', 'the update of the open resource');
    expect(told(read.get, 0)).toEqual([
      `${UPDATED} docs://handbook`,
      `${UPDATED} docs://pages/intro`,
      `${UPDATED} docs://welcome`,
    ]);
    expect(told(adm.get, 0)).toEqual([
      `${UPDATED} docs://handbook`,
      `${UPDATED} docs://pages/intro`,
      `${UPDATED} internal://config`,
      `${UPDATED} docs://welcome`,
    ]);
  });
});

describe.each(ADAPTERS)(
  'without auth, hook or scoped resources nothing is filtered, until a scoped resource appears (%s)',
  (adapter) => {
    let server: ListenApp;
    const streams: OpenStream[] = [];

    beforeAll(async () => {
      server = await startListenApp(adapter, () => ({}), [OpenResources]);
    });
    afterEach(async () => {
      for (const stream of streams.splice(0)) {
        stream.close();
        await stream.ended;
      }
      await until(() => server.subs.openStreams === 0, 2_000, 'the listen streams to end');
    });
    afterAll(async () => {
      await server?.close();
    });

    it('an unknown URI is acknowledged as before; a scoped resource registered there later is never told to an HTTP caller without a token', async () => {
      const stream = await openStream(server.mcpUrl, {
        method: 'subscriptions/listen',
        id: 's',
        params: { notifications: { resourceSubscriptions: ['late://report', 'docs://welcome'] } },
      });
      streams.push(stream);
      expect(await acknowledgedUris(stream, 's')).toEqual(['late://report', 'docs://welcome']);
      await server.publisher.resourceUpdated('late://report');
      await stream.waitFor((m) => m.params?.uri === 'late://report', 'the update of the not-yet-served URI');

      server.registry.registerResource({ uri: 'late://report', mimeType: 'text/plain' }, () => 'report', {
        scopes: ['reports:read'],
      });
      try {
        await server.publisher.resourceUpdated('late://report');
        await server.publisher.resourceUpdated('docs://welcome');
        await stream.waitFor((m) => m.params?.uri === 'docs://welcome', 'the open resource');
        // The stream did not ask for list changes: after the first update, only the open resource.
        expect(told(stream)).toEqual([`${UPDATED} late://report`, `${UPDATED} docs://welcome`]);
      } finally {
        server.registry.removeResource('late://report');
      }
    });
  },
);

describe("in process: the testing kit's caller", () => {
  let app: INestApplication;
  let client: McpTestingClient;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ListenVisibilityModule.serve({
          auth: {
            resource: 'http://127.0.0.1:1/mcp',
            authorizationServers: ['http://127.0.0.1:2'],
            scopeHierarchy: { 'docs:admin': ['docs:read'] },
          },
          visibility: internalForAdmin,
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    client = await McpTestingClient.create(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('client.as() is judged by its scopes; a local caller (no caller) is trusted with scopes but the hook still applies', async () => {
    const outsiderStream = await client
      .as({ subject: 'ana', scopes: ['team:ops'] })
      .listen({ resourceSubscriptions: ASKED });
    const readerStream = await client
      .as({ subject: 'bo', scopes: ['docs:read'] })
      .listen({ resourceSubscriptions: ASKED });
    const local = await client.listen({ resourceSubscriptions: ASKED });
    try {
      expect(outsiderStream.acknowledged.resourceSubscriptions).toEqual(['docs://welcome']);
      expect(readerStream.acknowledged.resourceSubscriptions).toEqual([
        'docs://handbook',
        'docs://pages/intro',
        'docs://welcome',
      ]);
      // Trusted: scopes are not enforced, but the hook hides the internal ones (and then unknown URIs go too).
      expect(local.acknowledged.resourceSubscriptions).toEqual([
        'docs://handbook',
        'docs://pages/intro',
        'docs://welcome',
      ]);
      const publisher = app.get(McpPublisher);
      await publisher.resourceUpdated('docs://handbook');
      await publisher.resourceUpdated('docs://welcome');
      expect((await outsiderStream.next(UPDATED)).params?.uri).toBe('docs://welcome');
      expect((await readerStream.next(UPDATED)).params?.uri).toBe('docs://handbook');
      expect((await local.next(UPDATED)).params?.uri).toBe('docs://handbook');
    } finally {
      await Promise.all([outsiderStream.close(), readerStream.close(), local.close()]);
    }
  });
});
