import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpResource } from '../decorators/mcp-resource.decorator.js';
import { McpResourceTemplate } from '../decorators/mcp-resource-template.decorator.js';
import { McpScopes } from '../decorators/mcp-scopes.decorator.js';
import { McpModule } from '../mcp.module.js';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import type { JsonRpcNotification } from '../protocol/json-rpc.interface.js';
import { ResponseChannel } from '../protocol/response-channel.js';
import { McpPublisher } from '../subscriptions/mcp.publisher.js';
import type { LegacySession } from './legacy-session.js';
import { McpSessionStore } from './legacy-session.store.js';
import { type LegacyCaller, McpLegacyWireService } from './legacy-wire.service.js';

@Injectable()
class Docs {
  @McpScopes('docs:read')
  @McpResource({ uri: 'docs://handbook', mimeType: 'text/plain' })
  handbook() {
    return 'handbook';
  }

  @McpScopes('docs:read')
  @McpResourceTemplate({ uriTemplate: 'docs://pages/{id}', mimeType: 'text/plain' })
  page() {
    return 'page';
  }

  @McpResource({ uri: 'internal://config', name: 'internal_config', mimeType: 'text/plain' })
  config() {
    return 'config';
  }

  @McpResource({ uri: 'docs://welcome', mimeType: 'text/plain' })
  welcome() {
    return 'welcome';
  }
}

const token = (subject: string, scopes: string[]): McpAccessToken => ({ subject, scopes, claims: { sub: subject } });
/** What an HTTP exchange carries: the verified token and its principal, from a remote caller. */
const overHttp = (subject: string, scopes: string[]): LegacyCaller => ({
  principal: subject,
  accessToken: token(subject, scopes),
  origin: 'http',
});

/**
 * `resources/subscribe` on a 2025-11-25 session is judged with the caller the transport passes (the exchange's verified
 * token): updates of URIs it may not read never reach the session, whatever it subscribed to; without a caller an HTTP
 * session fails closed (no token: no scopes).
 */
describe('2025-11-25 resources/subscribe and per-caller visibility', () => {
  let app: INestApplication;
  let store: McpSessionStore;
  let wire: McpLegacyWireService;
  let publisher: McpPublisher;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          name: 'legacy-visibility',
          version: '1',
          auth: { resource: 'http://127.0.0.1:1/mcp', authorizationServers: ['http://127.0.0.1:2'] },
          visibility: (handler, caller) => !handler.name.startsWith('internal_') || caller.principal === 'root',
        }),
      ],
      providers: [Docs],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    store = app.get(McpSessionStore);
    wire = app.get(McpLegacyWireService);
    publisher = app.get(McpPublisher);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** An initialized HTTP session of `principal` with a stream, subscribed to `uris` as `caller`; returns what it hears. */
  function subscribed(
    principal: string,
    caller: LegacyCaller | undefined,
    uris: string[],
  ): { session: LegacySession; heard: string[] } {
    const created = store.create({ protocolVersion: '2025-11-25', capabilities: {} }, { principal });
    if (!('session' in created)) throw new Error(`refused: ${created.refused}`);
    const session = created.session;
    session.initialized = true;
    const channel = new ResponseChannel();
    const heard: string[] = [];
    channel.messages$.subscribe((message) => {
      if (message.type === 'notification') heard.push(String((message.message as JsonRpcNotification).params?.uri));
    });
    session.attachStream(channel);
    for (const [index, uri] of uris.entries()) {
      expect(
        wire.sessionMethod(
          session,
          { jsonrpc: '2.0', id: index, method: 'resources/subscribe', params: { uri } },
          caller,
        ),
      ).toEqual({});
    }
    return { session, heard };
  }

  const everything = ['docs://handbook', 'docs://pages', 'internal://config', 'docs://welcome', 'unknown://x'];
  async function publishAll(): Promise<void> {
    for (const uri of ['docs://handbook', 'docs://pages/1', 'internal://config', 'docs://welcome', 'unknown://x'])
      await publisher.resourceUpdated(uri);
  }

  it('a caller with the scope hears the scoped resource and template; the hook still hides what it hides', async () => {
    const reader = subscribed('ana', overHttp('ana', ['docs:read']), everything);
    const root = subscribed('root', overHttp('root', ['docs:read']), everything);
    await publishAll();
    expect(reader.heard).toEqual(['docs://handbook', 'docs://pages/1', 'docs://welcome', 'unknown://x']);
    expect(root.heard).toEqual([
      'docs://handbook',
      'docs://pages/1',
      'internal://config',
      'docs://welcome',
      'unknown://x',
    ]);
    store.delete(reader.session.id);
    store.delete(root.session.id);
  });

  it('a caller without the scope, or an HTTP session subscribed without a caller (fail closed), hears only what it may read', async () => {
    const outsider = subscribed('bo', overHttp('bo', ['team:ops']), everything);
    const noCaller = subscribed('cy', undefined, everything);
    await publishAll();
    expect(outsider.heard).toEqual(['docs://welcome', 'unknown://x']);
    expect(noCaller.heard).toEqual(['docs://welcome', 'unknown://x']);
    // The subscriptions are kept (answered and counted like unknown URIs), only never delivered.
    expect([...outsider.session.subscriptions]).toEqual(everything);
    store.delete(outsider.session.id);
    store.delete(noCaller.session.id);
  });

  it('the latest subscriber decides: a step-up token lets the session hear what the first token could not', async () => {
    const session = subscribed('dee', overHttp('dee', ['team:ops']), ['docs://handbook']);
    await publisher.resourceUpdated('docs://handbook');
    expect(session.heard).toEqual([]);
    wire.sessionMethod(
      session.session,
      { jsonrpc: '2.0', id: 9, method: 'resources/subscribe', params: { uri: 'docs://welcome' } },
      overHttp('dee', ['docs:read']),
    );
    await publisher.resourceUpdated('docs://handbook');
    expect(session.heard).toEqual(['docs://handbook']);
    store.delete(session.session.id);
  });
});
