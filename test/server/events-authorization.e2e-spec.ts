import { type DynamicModule, Injectable, Module } from '@nestjs/common';
import { type McpAccessToken, McpEvent, McpEvents, McpEventTypes, McpModule, McpScopes } from 'nest-mcp';
import { McpTestingClient, McpWebhookReceiver } from 'nest-mcp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { SEP_CODES, errorOf, eventsPost, resultOf } from '../support/events.util.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { sleep } from '../support/wait.util.js';

/** Principals the application revoked: the `visibility` hook hides the events of the `watched.*` types from them. */
const revoked = new Set<string>();
/** Principals the `authorize` hook of `grant.checked` admits. */
const granted = new Set<string>();
/** Tokens the test verifier knows, by their opaque value. */
const tokens = new Map<string, McpAccessToken>();

@Injectable()
class WatchedEvents {
  @McpEvent({ name: 'watched.change', description: 'Something watched changed' })
  change(): boolean {
    return true;
  }

  @McpScopes('watch:read')
  @McpEvent({ name: 'watched.scoped', description: 'Needs watch:read' })
  scoped(): boolean {
    return true;
  }
}

@Module({})
class AuthorizationFixtureModule {
  static forRoot(auth: boolean): DynamicModule {
    return {
      module: AuthorizationFixtureModule,
      imports: [
        McpModule.forRoot({
          name: 'events-authorization-e2e',
          version: '1.0.0',
          ...(auth
            ? {
                auth: {
                  resource: 'http://127.0.0.1/mcp',
                  authorizationServers: ['https://issuer.example.com'],
                  verifier: {
                    verify: async (token: string) => tokens.get(token) ?? Promise.reject(new Error('unknown token')),
                  },
                },
              }
            : {
                principal: (request: unknown) =>
                  (request as { headers: Record<string, string | undefined> }).headers['x-principal'],
              }),
          visibility: (handler, caller) =>
            handler.kind !== 'event' || !handler.name.startsWith('watched.') || !revoked.has(caller.principal ?? ''),
          events: { heartbeatMs: 100, webhooks: { allowInsecureLoopback: true, retryBaseMs: 40 } },
        }),
      ],
      providers: [WatchedEvents],
    };
  }
}

function tokenFor(principal: string, seconds: number, scopes: string[] = []): string {
  const token = `${principal}-${seconds}-${Math.random().toString(36).slice(2)}`;
  tokens.set(token, {
    subject: principal,
    scopes,
    expiresAt: Math.floor(Date.now() / 1000) + seconds,
    claims: { sub: principal },
  });
  return token;
}

/**
 * Authorization checked again at delivery time (SEP-3415 "Authorization", E-55): a webhook subscription whose
 * principal the `visibility` hook or the type's `authorize` now refuses is ended with a signed `terminated` envelope
 * (`Forbidden`, `data.reason: "revoked"`) before anything more is delivered; a push stream is ended at its next
 * heartbeat, as it is when the access token it was opened with expires (`token_expired`).
 */
describe.each(ADAPTERS)('events: authorization again at delivery time (%s)', (adapter) => {
  let server: RunningApp;
  const receivers: McpWebhookReceiver[] = [];
  const receiver = async () => {
    const started = await McpWebhookReceiver.start();
    receivers.push(started);
    return started;
  };
  const emit = (name: string, eventId: string) => server.app.get(McpEvents).emit(name, { id: eventId }, { eventId });

  beforeAll(async () => {
    server = await startApp(adapter, { imports: [AuthorizationFixtureModule.forRoot(false)] });
    server.app
      .get(McpEventTypes)
      .register({ name: 'grant.checked', authorize: (_args, caller) => granted.has(caller.principal ?? '') });
  });
  afterEach(async () => {
    revoked.clear();
    granted.clear();
    for (const started of receivers.splice(0)) await started.close();
  });
  afterAll(() => server?.close());

  it('a webhook whose principal the visibility hook now hides is terminated (Forbidden, revoked), signed, and nothing more is delivered', async () => {
    const target = await receiver();
    const params = { name: 'watched.change', arguments: {}, delivery: { url: target.url, secret: target.secret } };
    const { id } = resultOf(await eventsPost(server.mcpUrl, 'events/subscribe', params, 'mallory'));
    await emit('watched.change', 'evt_before');
    expect((await target.nextEvent()).json.eventId).toBe('evt_before');
    revoked.add('mallory');
    await emit('watched.change', 'evt_after');
    const envelope = await target.next('terminated');
    expect(envelope.verified).toBe(true);
    expect(envelope.headers['x-mcp-subscription-id']).toBe(id);
    expect(envelope.json).toEqual({
      type: 'terminated',
      error: { code: SEP_CODES.Forbidden, message: expect.stringMatching(/^Forbidden/), data: { reason: 'revoked' } },
    });
    await emit('watched.change', 'evt_later');
    await sleep(200);
    expect(target.events.map((event) => event.json.eventId)).toEqual(['evt_before']);
    // The subscription is gone; subscribing again is refused while the cause persists.
    revoked.delete('mallory');
    errorOf(
      await eventsPost(
        server.mcpUrl,
        'events/unsubscribe',
        { name: 'watched.change', delivery: { url: target.url } },
        'mallory',
      ),
      SEP_CODES.NotFound,
    );
  });

  it("a webhook whose type's authorize hook now refuses its principal is terminated the same way", async () => {
    granted.add('trent');
    const target = await receiver();
    resultOf(
      await eventsPost(
        server.mcpUrl,
        'events/subscribe',
        { name: 'grant.checked', delivery: { url: target.url, secret: target.secret } },
        'trent',
      ),
    );
    granted.delete('trent');
    await emit('grant.checked', 'evt_not_granted');
    const envelope = await target.next('terminated');
    expect(envelope.json.error).toMatchObject({ code: SEP_CODES.Forbidden, data: { reason: 'revoked' } });
    expect(target.events).toEqual([]);
  });

  it('a push stream whose principal is revoked is terminated at its next heartbeat (Forbidden, revoked), then closed', async () => {
    const client = await McpTestingClient.connect(server.app, { headers: { 'x-principal': 'peggy' } });
    const stream = await client.streamEvents('watched.change');
    try {
      await emit('watched.change', 'evt_streamed');
      expect((await stream.nextEvent()).eventId).toBe('evt_streamed');
      revoked.add('peggy');
      const terminated = await stream.next('notifications/events/terminated', 3_000);
      expect(terminated.params?.error).toMatchObject({ code: SEP_CODES.Forbidden, data: { reason: 'revoked' } });
      await sleep(300);
      expect(stream.closed).toBe(true);
    } finally {
      await stream.close();
    }
  });
});

describe.each(ADAPTERS)('events: a push stream outlives neither its token nor its scopes (%s)', (adapter) => {
  let server: RunningApp;

  beforeAll(async () => {
    server = await startApp(adapter, { imports: [AuthorizationFixtureModule.forRoot(true)] });
  });
  afterAll(() => server?.close());

  it('a stream opened with a token that then expires is terminated with Forbidden token_expired', async () => {
    const token = tokenFor('victor', 2);
    const client = await McpTestingClient.connect(server.app, { headers: { authorization: `Bearer ${token}` } });
    const stream = await client.streamEvents('watched.change');
    try {
      expect(stream.active.truncated).toBe(false);
      const terminated = await stream.next('notifications/events/terminated', 5_000);
      expect(terminated.params?.error).toMatchObject({ code: SEP_CODES.Forbidden, data: { reason: 'token_expired' } });
    } finally {
      await stream.close();
    }
  });

  it('a webhook subscribed with a scope keeps that grant: it is delivered, and the scoped type refuses a token without it (403)', async () => {
    const target = await McpWebhookReceiver.start();
    try {
      const scoped = tokenFor('wendy', 600, ['watch:read']);
      const subscribe = (token: string) =>
        mcpPost(server.mcpUrl, {
          method: 'events/subscribe',
          params: { name: 'watched.scoped', delivery: { url: target.url, secret: target.secret } },
          meta: requestMeta(),
          headers: { authorization: `Bearer ${token}` },
        });
      expect((await subscribe(tokenFor('walter', 600))).status).toBe(403);
      resultOf(await subscribe(scoped));
      await server.app.get(McpEvents).emit('watched.scoped', { id: 1 }, { eventId: 'evt_scoped' });
      const delivery = await target.nextEvent();
      expect(delivery.json.eventId).toBe('evt_scoped');
    } finally {
      await target.close();
    }
  });
});
