import type { INestApplication, LoggerService } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { McpEvents, McpEventTypes } from 'nest-mcp';
import { McpWebhookReceiver } from 'nest-mcp/testing';
import { EventsFixtureModule } from '../fixtures/events.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { errorOf, eventsPost, OPENAI_CODES, resultOf, secretOf, SEP_CODES } from '../support/events.util.js';
import { sleep, until, untilAsync } from '../support/wait.util.js';
import {
  MCP_WEBHOOK_SUBSCRIPTION_STORE,
  type McpWebhookSubscriptionStore,
} from '../../libs/mcp/src/protocol/webhook-subscription-store.interface.js';

/**
 * Verified webhooks of the events extension (SEP-3415, "Webhook-Based Delivery") over real HTTP on both adapters, with
 * real receivers on 127.0.0.1 (the server's development switch `allowInsecureLoopback` is on; callbacks to any other
 * address are tested in `events-ssrf.e2e-spec.ts`, inside a network namespace). Every delivery is verified with the
 * `standardwebhooks` library by the receiver.
 */

const emit = (app: INestApplication, name: string, data: object, eventId?: string) =>
  app.get(McpEvents).emit(name, data, eventId ? { eventId } : {});
const INCIDENT = { id: 'W-1', severity: 'P1', service: 'api', title: 'DB down' } as const;

/** Keeps every message Nest logs, at every level. */
class AllLogs implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown): void {
    this.lines.push(String(message));
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.lines.push([message, ...rest].map(String).join(' '));
  }
  warn(message: unknown): void {
    this.lines.push(String(message));
  }
  debug(message: unknown): void {
    this.lines.push(String(message));
  }
  verbose(message: unknown): void {
    this.lines.push(String(message));
  }
}

describe.each(ADAPTERS)('events webhooks (%s)', (adapter) => {
  let server: RunningApp;
  const receivers: McpWebhookReceiver[] = [];
  const logs = new AllLogs();

  beforeAll(async () => {
    server = await startApp(adapter, {
      imports: [
        EventsFixtureModule.forRoot({
          events: {
            webhooks: {
              allowInsecureLoopback: true,
              retryBaseMs: 40,
              maxAttempts: 5,
              timeoutMs: 2_000,
              maxSubscriptionsPerPrincipal: 30,
              maxVerificationsPerHostPerMinute: 1_000,
            },
          },
        }),
      ],
    });
    server.app.useLogger(logs);
  });

  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  afterAll(() => server?.close());

  const receiver = async () => {
    const started = await McpWebhookReceiver.start();
    receivers.push(started);
    return started;
  };
  /** As `alice` unless told otherwise; `null`: no principal at all. */
  const subscribe = (params: Record<string, unknown>, principal: string | null = 'alice') =>
    eventsPost(server.mcpUrl, 'events/subscribe', params, principal ?? undefined);
  const unsubscribe = (params: Record<string, unknown>, principal: string | null = 'alice') =>
    eventsPost(server.mcpUrl, 'events/unsubscribe', params, principal ?? undefined);
  const webhook = (target: McpWebhookReceiver, extra: Record<string, unknown> = {}) => ({
    mode: 'webhook',
    url: target.url,
    secret: target.secret,
    ...extra,
  });

  it('E-27: subscribe and unsubscribe without an authenticated principal are Forbidden; nothing is sent', async () => {
    const target = await receiver();
    expect(
      errorOf(await subscribe({ name: 'incident.opened', delivery: webhook(target) }, null), SEP_CODES.Forbidden).data
        .reason,
    ).toMatch(/principal/);
    errorOf(await unsubscribe({ name: 'incident.opened', delivery: { url: target.url } }, null), SEP_CODES.Forbidden);
    await sleep(100);
    expect(target.requests).toEqual([]);
  });

  it('E-28, E-58: bad secrets are -32602 whose message never repeats the secret, and nothing is sent', async () => {
    const target = await receiver();
    const bad = [
      target.secret.slice('whsec_'.length),
      secretOf(23),
      secretOf(65),
      // Not canonical: 25 bytes whose last base64 digit carries bits the padding should have zeroed.
      `whsec_${Buffer.alloc(25, 1).toString('base64').replace(/Q==$/, 'R==')}`,
      'whsec_not base64!!',
      42,
    ];
    for (const secret of bad) {
      const error = errorOf(
        await subscribe({ name: 'incident.opened', delivery: { mode: 'webhook', url: target.url, secret } }),
        -32602,
      );
      expect(error.message).toMatch(/delivery\.secret/);
      if (typeof secret === 'string') expect(JSON.stringify(error)).not.toContain(secret.slice(6, 20));
    }
    // 24 and 64 bytes are the bounds, both accepted.
    target.addSecret(secretOf(24)).addSecret(secretOf(64));
    resultOf(
      await subscribe({
        name: 'incident.opened',
        arguments: { service: 'bounds24' },
        delivery: { mode: 'webhook', url: target.url, secret: secretOf(24) },
      }),
    );
    resultOf(
      await subscribe({
        name: 'incident.opened',
        arguments: { service: 'bounds64' },
        delivery: { mode: 'webhook', url: target.url, secret: secretOf(64) },
      }),
    );
    expect(target.requests.every((request) => request.kind === 'verification')).toBe(true);
  });

  it('E-7, E-29: another delivery mode is Unsupported; a type without webhook likewise; an absent mode means webhook', async () => {
    const target = await receiver();
    expect(
      errorOf(
        await subscribe({ name: 'incident.opened', delivery: webhook(target, { mode: 'email' }) }),
        SEP_CODES.Unsupported,
      ).data,
    ).toEqual({
      feature: 'deliveryMode',
      value: 'email',
    });
    server.app.get(McpEventTypes).register({ name: 'no.webhook', delivery: ['poll', 'push'] });
    try {
      expect(
        errorOf(await subscribe({ name: 'no.webhook', delivery: webhook(target) }), SEP_CODES.Unsupported).data,
      ).toEqual({ feature: 'deliveryMode', value: 'webhook' });
    } finally {
      server.app.get(McpEventTypes).remove('no.webhook');
    }
    const { mode: _mode, ...noMode } = webhook(target);
    resultOf(await subscribe({ name: 'incident.opened', arguments: { service: 'nomode' }, delivery: noMode }));
  });

  it('E-31, E-32, E-33, E-36: the endpoint is verified first (signed challenge, echoed); the result has a deterministic sub_ id, refreshBefore, a cursor and truncated', async () => {
    const target = await receiver();
    const result = resultOf(
      await subscribe({
        name: 'incident.opened',
        arguments: { severity: 'P1' },
        delivery: webhook(target),
        ttlMs: 3_600_000,
      }),
    );
    expect(result.id).toMatch(/^sub_[0-9a-f]{64}$/);
    expect(typeof result.cursor).toBe('string');
    expect(result.truncated).toBe(false);
    expect(Date.parse(result.refreshBefore) - Date.now()).toBeGreaterThan(3_590_000);
    expect(result.refreshBefore).toMatch(/Z$/);
    const [challenge] = target.requests;
    expect(challenge.kind).toBe('verification');
    expect(challenge.verified).toBe(true);
    expect(challenge.headers['webhook-id']).toMatch(/^msg_verification_/);
    expect(challenge.headers['x-mcp-subscription-id']).toBe(result.id);
    expect(challenge.json).toEqual({ type: 'verification', challenge: expect.any(String) });
    expect(result).not.toHaveProperty('deliveryStatus');
  });

  it('E-30, E-31: the same key with reordered arguments is the same subscription (same id, a refresh with deliveryStatus); another query string or principal is another', async () => {
    const target = await receiver();
    const first = resultOf(
      await subscribe({
        name: 'incident.opened',
        arguments: { severity: 'P2', service: 'api' },
        delivery: webhook(target),
      }),
    );
    const again = resultOf(
      await subscribe({
        name: 'incident.opened',
        arguments: { service: 'api', severity: 'P2' },
        delivery: webhook(target),
      }),
    );
    expect(again.id).toBe(first.id);
    expect(again.deliveryStatus).toEqual({ active: true, lastError: null });
    const query = resultOf(
      await subscribe({
        name: 'incident.opened',
        arguments: { severity: 'P2', service: 'api' },
        delivery: webhook(target, { url: `${target.url}?k=1` }),
      }),
    );
    expect(query.id).not.toBe(first.id);
    const bob = resultOf(
      await subscribe(
        { name: 'incident.opened', arguments: { severity: 'P2', service: 'api' }, delivery: webhook(target) },
        'bob',
      ),
    );
    expect(bob.id).not.toBe(first.id);
    // One challenge per (principal, url): alice's second subscribe and refresh reuse her consent.
    expect(target.requests.filter((request) => request.kind === 'verification')).toHaveLength(3);
    // Bob cannot end alice's subscription: his key does not name it.
    resultOf(
      await unsubscribe(
        { name: 'incident.opened', arguments: { severity: 'P2', service: 'api' }, delivery: { url: target.url } },
        'bob',
      ),
    );
    errorOf(
      await unsubscribe(
        { name: 'incident.opened', arguments: { severity: 'P2', service: 'api' }, delivery: { url: target.url } },
        'bob',
      ),
      SEP_CODES.NotFound,
    );
    resultOf(
      await unsubscribe(
        { name: 'incident.opened', arguments: { service: 'api', severity: 'P2' }, delivery: { url: target.url } },
        'alice',
      ),
    );
  });

  it('E-38, E-39, E-40, E-12: one event per POST, application/json, webhook-id = eventId, a Standard Webhooks signature that verifies, X-MCP-Subscription-Id, a body without top-level type', async () => {
    const target = await receiver();
    const { id } = resultOf(
      await subscribe({ name: 'incident.opened', arguments: { service: 'hdr' }, delivery: webhook(target) }),
    );
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'hdr' }, 'evt_hdr_1');
    await emit(server.app, 'incident.opened', { ...INCIDENT, id: 'W-2', service: 'hdr' }, 'evt_hdr_2');
    const first = await target.nextEvent();
    const second = await target.nextEvent();
    for (const delivery of [first, second]) {
      expect(delivery.verified).toBe(true);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['x-mcp-subscription-id']).toBe(id);
      expect(delivery.headers['webhook-id']).toBe(delivery.json.eventId);
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      expect(delivery.json).not.toHaveProperty('type');
      expect(new Webhook(target.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(
        delivery.json,
      );
    }
    expect(first.json).toEqual({
      eventId: 'evt_hdr_1',
      name: 'incident.opened',
      timestamp: expect.stringMatching(/Z$/),
      data: { incidentId: 'W-1', severity: 'P1', title: 'DB down' },
      cursor: expect.any(String),
    });
    expect(second.json.eventId).toBe('evt_hdr_2');
  });

  it('E-42, E-39: a receiver that answers 500 three times then 200 gets the event once acknowledged, with the same webhook-id and body on every attempt and a fresh signature each time', async () => {
    const target = await receiver();
    resultOf(await subscribe({ name: 'incident.opened', arguments: { service: 'retry' }, delivery: webhook(target) }));
    target.respondWith(500, 500, 500);
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'retry' }, 'evt_retry');
    const acknowledged = await target.nextEvent(10_000);
    const attempts = target.events;
    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(attempts.map((attempt) => attempt.headers['webhook-id']))).toEqual(new Set(['evt_retry']));
    expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
    expect(attempts.every((attempt) => attempt.verified)).toBe(true);
    expect(acknowledged.json.eventId).toBe('evt_retry');
    await sleep(300);
    expect(target.events).toHaveLength(4);
  });

  it('E-43: 410 and 413 are not retried; a 301 is never followed (its Location gets nothing) and is retried', async () => {
    const target = await receiver();
    const elsewhere = await receiver();
    resultOf(await subscribe({ name: 'incident.opened', arguments: { service: 'status' }, delivery: webhook(target) }));
    target.respondWith(410, 413, { status: 301, headers: { location: elsewhere.url } });
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'status' }, 'evt_gone');
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'status' }, 'evt_big');
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'status' }, 'evt_moved');
    await until(
      () => target.events.filter((event) => event.json.eventId === 'evt_moved').length >= 2,
      5_000,
      'the redirected event to be retried',
    );
    await sleep(300);
    const attemptsOf = (eventId: string) =>
      target.events.filter((event) => event.json.eventId === eventId).map((event) => event.status);
    expect(attemptsOf('evt_gone')).toEqual([410]);
    expect(attemptsOf('evt_big')).toEqual([413]);
    expect(attemptsOf('evt_moved')).toEqual([301, 200]);
    expect(elsewhere.requests).toEqual([]);
  });

  it('E-43: a 429 with Retry-After: 1 is retried no sooner than a second later', async () => {
    const target = await receiver();
    resultOf(
      await subscribe({ name: 'incident.opened', arguments: { service: 'throttle' }, delivery: webhook(target) }),
    );
    target.respondWith({ status: 429, headers: { 'retry-after': '1' } });
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'throttle' }, 'evt_throttled');
    await target.nextEvent(5_000);
    const [refused, accepted] = target.events;
    expect(refused.status).toBe(429);
    expect(accepted.receivedAt - refused.receivedAt).toBeGreaterThanOrEqual(950);
  });

  it('E-42: a receiver that always fails gets at most maxAttempts (5) attempts, then the delivery is abandoned; a refresh then shows lastError', async () => {
    const target = await receiver();
    const params = { name: 'incident.opened', arguments: { service: 'down' }, delivery: webhook(target) };
    resultOf(await subscribe(params));
    target.respondWith(503, 503, 503, 503, 503, 503, 503);
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'down' }, 'evt_down');
    await until(() => target.events.length >= 5, 8_000, 'five attempts');
    await sleep(1_500);
    expect(target.events).toHaveLength(5);
    const refresh = resultOf(await subscribe(params));
    expect(refresh.deliveryStatus).toMatchObject({
      active: true,
      lastError: 'http_5xx',
      failedSince: expect.any(String),
    });
  });

  it("E-41: the body cursor is a safe watermark: while an earlier event is still retried, a later body's cursor resumes at that earlier event", async () => {
    const target = await receiver();
    const args = { service: 'watermark' };
    resultOf(await subscribe({ name: 'incident.opened', arguments: args, delivery: webhook(target) }));
    target.respondWith(500);
    await emit(server.app, 'incident.opened', { ...INCIDENT, id: 'A', service: 'watermark' }, 'evt_A');
    await until(() => target.events.length >= 1, 3_000, 'the first attempt of A');
    await emit(server.app, 'incident.opened', { ...INCIDENT, id: 'B', service: 'watermark' }, 'evt_B');
    const b = await until(() => target.events.some((event) => event.json.eventId === 'evt_B'), 3_000, 'B').then(
      () => target.events.find((event) => event.json.eventId === 'evt_B')!,
    );
    const resumed = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: args,
        cursor: b.json.cursor,
      }),
    );
    expect(resumed.events.map((event: { eventId: string }) => event.eventId)).toEqual(['evt_A', 'evt_B']);
    await until(
      () => target.events.some((event) => event.json.eventId === 'evt_A' && event.status === 200),
      3_000,
      'A acknowledged',
    );
  });

  it('E-35, E-47: a refresh with a new secret replaces it; during the grace both secrets sign (space-separated v1 signatures)', async () => {
    const target = await receiver();
    const args = { service: 'rotate' };
    const oldSecret = target.secret;
    resultOf(await subscribe({ name: 'incident.opened', arguments: args, delivery: webhook(target) }));
    const newSecret = secretOf(40);
    const refreshed = resultOf(
      await subscribe({ name: 'incident.opened', arguments: args, delivery: webhook(target, { secret: newSecret }) }),
    );
    expect(refreshed.deliveryStatus.active).toBe(true);
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'rotate' }, 'evt_rotate');
    const delivery = await target.nextEvent();
    const signatures = String(delivery.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const secret of [oldSecret, newSecret])
      expect(new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)).toBeDefined();
  });

  it('E-37: unsubscribe answers an empty result and stops deliveries at once; a second unsubscribe is NotFound kind subscription', async () => {
    const target = await receiver();
    const args = { service: 'leaving' };
    resultOf(await subscribe({ name: 'incident.opened', arguments: args, delivery: webhook(target) }));
    const result = resultOf(
      await unsubscribe({ name: 'incident.opened', arguments: args, delivery: { mode: 'webhook', url: target.url } }),
    );
    expect(Object.keys(result).filter((key) => key !== '_meta')).toEqual(['resultType']);
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'leaving' });
    await sleep(200);
    expect(target.events).toEqual([]);
    expect(
      errorOf(
        await unsubscribe({ name: 'incident.opened', arguments: args, delivery: { url: target.url } }),
        SEP_CODES.NotFound,
      ).data,
    ).toEqual({ kind: 'subscription' });
  });

  it('E-33: TTL: omitted → the default (1 h), 5 ms → the floor (60 s), 10 days → the ceiling (24 h), null without allowNoExpiry → finite, "60000" → -32602', async () => {
    const target = await receiver();
    const granted = async (ttlMs: unknown, service: string) => {
      const result = resultOf(
        await subscribe({
          name: 'incident.opened',
          arguments: { service },
          delivery: webhook(target),
          ...(ttlMs !== undefined && { ttlMs }),
        }),
      );
      return result.refreshBefore === null ? null : Date.parse(result.refreshBefore) - Date.now();
    };
    expect(await granted(undefined, 'ttl-a')).toBeGreaterThan(3_590_000);
    expect(await granted(5, 'ttl-b')).toBeGreaterThan(55_000);
    expect(await granted(5, 'ttl-b')).toBeLessThanOrEqual(60_000);
    expect(await granted(10 * 86_400_000, 'ttl-c')).toBeLessThanOrEqual(86_400_000);
    expect(await granted(null, 'ttl-d')).toBeGreaterThan(3_590_000);
    errorOf(
      await subscribe({
        name: 'incident.opened',
        arguments: { service: 'ttl-e' },
        delivery: webhook(target),
        ttlMs: '60000',
      }),
      -32602,
    );
    for (const service of ['ttl-a', 'ttl-b', 'ttl-c', 'ttl-d'])
      resultOf(await unsubscribe({ name: 'incident.opened', arguments: { service }, delivery: { url: target.url } }));
  });

  it('E-49, E-50: a new subscription with a cursor replays what the log holds after it; cursor null starts from now', async () => {
    const target = await receiver();
    const args = { service: 'backlog' };
    const start = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', { name: 'incident.opened', arguments: args, cursor: null }),
    ).cursor;
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'backlog' }, 'evt_back_1');
    await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'backlog' }, 'evt_back_2');
    const result = resultOf(
      await subscribe({ name: 'incident.opened', arguments: args, delivery: webhook(target), cursor: start }),
    );
    expect(result.truncated).toBe(false);
    await until(() => target.events.length >= 2, 3_000, 'the replayed events');
    expect(target.events.map((event) => event.json.eventId)).toEqual(['evt_back_1', 'evt_back_2']);
  });

  it('E-10, E-46: removing the type sends each subscription a signed terminated envelope (NotFound kind event) and ends it', async () => {
    const types = server.app.get(McpEventTypes);
    types.register({ name: 'short.lived' });
    const target = await receiver();
    const { id } = resultOf(await subscribe({ name: 'short.lived', delivery: webhook(target) }));
    types.remove('short.lived');
    const envelope = await target.next('terminated');
    expect(envelope.verified).toBe(true);
    expect(envelope.headers['x-mcp-subscription-id']).toBe(id);
    expect(envelope.headers['webhook-id']).toMatch(/^msg_terminated_/);
    expect(envelope.json).toEqual({
      type: 'terminated',
      error: { code: SEP_CODES.NotFound, message: expect.stringMatching(/^NotFound/), data: { kind: 'event' } },
    });
    // The subscription is gone: unsubscribing it finds nothing (the stored key resolves without the catalog).
    errorOf(await unsubscribe({ name: 'short.lived', delivery: { url: target.url } }), SEP_CODES.NotFound);
  });

  it('E-36, E-48, E-56: an endpoint that refuses or answers without the challenge is a CallbackEndpointError with a category only; nothing is delivered to it', async () => {
    const refusing = await receiver();
    refusing.challenges(false);
    const refused = errorOf(
      await subscribe({ name: 'incident.opened', arguments: { service: 'consent' }, delivery: webhook(refusing) }),
      SEP_CODES.CallbackEndpointError,
    );
    expect(refused.data).toEqual({ reason: 'http_4xx' });
    const silent = await plainEndpoint((_request, response) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"challenge":"nope, secret internal detail"}'),
    );
    try {
      const failed = errorOf(
        await subscribe({
          name: 'incident.opened',
          arguments: { service: 'consent' },
          delivery: { mode: 'webhook', url: silent.url, secret: secretOf() },
        }),
        SEP_CODES.CallbackEndpointError,
      );
      expect(failed.data).toEqual({ reason: 'challenge_failed' });
      expect(JSON.stringify(failed)).not.toContain('secret internal detail');
      await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'consent' });
      await sleep(200);
      expect(silent.posts).toBe(1);
      expect(refusing.events).toEqual([]);
    } finally {
      await silent.close();
    }
  });

  it('E-54: beyond maxSubscriptionsPerPrincipal a new subscription is ResourceExhausted {limit:"subscriptions", max}; refreshes still work', async () => {
    const target = await receiver();
    const store = server.app.get<symbol, McpWebhookSubscriptionStore>(MCP_WEBHOOK_SUBSCRIPTION_STORE);
    const held = await store.countByPrincipal('quota');
    const params = (index: number) => ({
      name: 'incident.opened',
      arguments: { service: `quota-${index}` },
      delivery: webhook(target),
    });
    for (let index = held; index < 30; index++) resultOf(await subscribe(params(index), 'quota'));
    expect(errorOf(await subscribe(params(99), 'quota'), SEP_CODES.ResourceExhausted).data).toEqual({
      limit: 'subscriptions',
      max: 30,
    });
    resultOf(await subscribe(params(5), 'quota'));
  });

  it('E-58: secrets are sealed at rest and never logged', async () => {
    const target = await receiver();
    resultOf(
      await subscribe({ name: 'incident.opened', arguments: { service: 'rest' }, delivery: webhook(target) }, 'erin'),
    );
    const store = server.app.get<symbol, McpWebhookSubscriptionStore>(MCP_WEBHOOK_SUBSCRIPTION_STORE);
    const [record] = (await store.listByName('incident.opened')).filter((entry) => entry.principal === 'erin');
    const raw = target.secret.slice('whsec_'.length);
    expect(JSON.stringify(record)).not.toContain(raw);
    expect(record.sealedSecret).toMatch(/^v1\./);
    for (const line of logs.lines) expect(line).not.toContain(raw);
  });
});

describe.each(ADAPTERS)('events webhooks: profiles and options (%s)', (adapter) => {
  let openai: RunningApp;
  let perMessage: RunningApp;
  let tight: RunningApp;
  const receivers: McpWebhookReceiver[] = [];

  beforeAll(async () => {
    const webhooks = { allowInsecureLoopback: true, retryBaseMs: 40 };
    openai = await startApp(adapter, {
      imports: [EventsFixtureModule.forRoot({ events: { profile: 'openai', webhooks } })],
    });
    perMessage = await startApp(adapter, {
      imports: [EventsFixtureModule.forRoot({ events: { webhookId: 'perMessage', webhooks } })],
    });
    tight = await startApp(adapter, {
      imports: [
        EventsFixtureModule.forRoot({
          events: { webhooks: { ...webhooks, maxPendingPerSubscription: 1, maxVerificationsPerHostPerMinute: 3 } },
        }),
      ],
    });
  });

  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  afterAll(() => Promise.all([openai?.close(), perMessage?.close(), tight?.close()]));

  const receiver = async () => {
    const started = await McpWebhookReceiver.start();
    receivers.push(started);
    return started;
  };

  it('E-37, E-59: with the openai profile an unsubscribe that matches nothing is an empty result, and the typed errors use -32011…', async () => {
    const answer = resultOf(
      await eventsPost(
        openai.mcpUrl,
        'events/unsubscribe',
        { name: 'incident.opened', delivery: { url: 'https://hooks.example.com/x' } },
        'alice',
      ),
    );
    expect(answer.resultType).toBe('complete');
    errorOf(
      await eventsPost(openai.mcpUrl, 'events/subscribe', {
        name: 'incident.opened',
        delivery: { url: 'https://hooks.example.com/x', secret: secretOf() },
      }),
      OPENAI_CODES.Forbidden,
    );
  });

  it('E-40: webhookId "perMessage" sends msg_evt_<hash>, the same on every retry', async () => {
    const target = await receiver();
    resultOf(
      await eventsPost(
        perMessage.mcpUrl,
        'events/subscribe',
        { name: 'incident.opened', delivery: { url: target.url, secret: target.secret } },
        'alice',
      ),
    );
    target.respondWith(500);
    await emit(perMessage.app, 'incident.opened', INCIDENT, 'evt_per_message');
    await target.nextEvent();
    const ids = new Set(target.events.map((event) => event.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^msg_evt_[0-9a-f]{32}$/);
    expect(target.events[0].json.eventId).toBe('evt_per_message');
  });

  it('E-46: events skipped while maxPendingPerSubscription deliveries are in flight are announced by a signed gap envelope once delivery recovers', async () => {
    const target = await receiver();
    const args = { service: 'gap' };
    const params = { name: 'incident.opened', arguments: args, delivery: { url: target.url, secret: target.secret } };
    resultOf(await eventsPost(tight.mcpUrl, 'events/subscribe', params, 'alice'));
    target.respondWith(500, 500);
    await emit(tight.app, 'incident.opened', { ...INCIDENT, service: 'gap' }, 'evt_gap_1');
    await emit(tight.app, 'incident.opened', { ...INCIDENT, service: 'gap' }, 'evt_gap_skipped');
    await until(() => target.events.some((event) => event.status === 200), 5_000, 'the first event acknowledged');
    // The receiver records the 200 before the server has read it: the next event is emitted once the server settled
    // the delivery (its deliveryStatus says so), else it would be skipped too and no gap would be due yet.
    await untilAsync(
      async () =>
        resultOf(await eventsPost(tight.mcpUrl, 'events/subscribe', params, 'alice')).deliveryStatus?.lastDeliveryAt !==
        undefined,
      5_000,
      'the first delivery settled on the server',
    );
    await emit(tight.app, 'incident.opened', { ...INCIDENT, service: 'gap' }, 'evt_gap_3');
    const gap = await target.next('gap');
    expect(gap.verified).toBe(true);
    expect(gap.headers['webhook-id']).toMatch(/^msg_gap_/);
    expect(gap.json).toEqual({ type: 'gap', cursor: expect.any(String) });
    await until(
      () => target.events.some((event) => event.json.eventId === 'evt_gap_3'),
      3_000,
      'the event after the gap',
    );
    expect(target.events.map((event) => event.json.eventId)).not.toContain('evt_gap_skipped');
    const resumed = resultOf(
      await eventsPost(tight.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: args,
        cursor: gap.json.cursor,
      }),
    );
    expect(resumed.events.map((event: { eventId: string }) => event.eventId)).toEqual(['evt_gap_3']);
  });
});

describe.each(ADAPTERS)('events webhooks: expiry (%s)', (adapter) => {
  it('E-33, E-48: a subscription that was not refreshed before refreshBefore expires: nothing more is delivered, and a refresh creates it again', async () => {
    const server = await startApp(adapter, {
      imports: [
        EventsFixtureModule.forRoot({
          events: { webhooks: { allowInsecureLoopback: true, minTtlMs: 200, defaultTtlMs: 200, maxTtlMs: 1_000 } },
        }),
      ],
    });
    const target = await McpWebhookReceiver.start();
    try {
      const params = {
        name: 'incident.opened',
        arguments: { service: 'expiring' },
        delivery: { url: target.url, secret: target.secret },
        ttlMs: 200,
      };
      const granted = resultOf(await eventsPost(server.mcpUrl, 'events/subscribe', params, 'alice'));
      expect(Date.parse(granted.refreshBefore) - Date.now()).toBeLessThanOrEqual(200);
      await sleep(300);
      await emit(server.app, 'incident.opened', { ...INCIDENT, service: 'expiring' }, 'evt_after_expiry');
      await sleep(200);
      expect(target.events).toEqual([]);
      const again = resultOf(await eventsPost(server.mcpUrl, 'events/subscribe', params, 'alice'));
      expect(again.id).toBe(granted.id);
      expect(again).not.toHaveProperty('deliveryStatus');
    } finally {
      await target.close();
      await server.close();
    }
  });
});

describe.each(ADAPTERS)('events webhooks: verification rate limit (%s)', (adapter) => {
  it('E-54: challenges to one host beyond maxVerificationsPerHostPerMinute are refused with ResourceExhausted {limit:"verifications_per_host"}, before any POST', async () => {
    const server = await startApp(adapter, {
      imports: [
        EventsFixtureModule.forRoot({
          events: { webhooks: { allowInsecureLoopback: true, maxVerificationsPerHostPerMinute: 2 } },
        }),
      ],
    });
    const target = await McpWebhookReceiver.start();
    try {
      for (const principal of ['p1', 'p2']) {
        resultOf(
          await eventsPost(
            server.mcpUrl,
            'events/subscribe',
            { name: 'incident.opened', delivery: { url: target.url, secret: target.secret } },
            principal,
          ),
        );
      }
      const refused = errorOf(
        await eventsPost(
          server.mcpUrl,
          'events/subscribe',
          { name: 'incident.opened', delivery: { url: target.url, secret: target.secret } },
          'p3',
        ),
        SEP_CODES.ResourceExhausted,
      );
      expect(refused.data).toEqual({ limit: 'verifications_per_host', max: 2 });
      expect(target.requests.filter((request) => request.kind === 'verification')).toHaveLength(2);
    } finally {
      await target.close();
      await server.close();
    }
  });
});

/** A bare HTTP endpoint on 127.0.0.1 that answers with `handle` and counts its POSTs. */
async function plainEndpoint(
  handle: (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => void,
) {
  let posts = 0;
  const server: Server = createServer((request, response) => {
    posts++;
    request.resume();
    request.on('end', () => handle(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    get posts() {
      return posts;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
