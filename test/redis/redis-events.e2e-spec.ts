import { Redis } from 'ioredis';
import { McpEvents } from 'nest-mcp';
import { McpTestingClient, McpWebhookReceiver } from 'nest-mcp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { errorOf, eventsPost, resultOf } from '../support/events.util.js';
import { closeReplica } from '../support/redis-replicas.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { sleep, until, untilAsync } from '../support/wait.util.js';
import { RedisEventsReplicaModule } from '../fixtures/redis-events.fixture.js';

const INCIDENT = { id: 'R-1', severity: 'P1', service: 'api', title: 'Database down' } as const;

/**
 * The events extension on Redis with two replicas in this process (the fault tests with replicas as processes are in
 * redis-events-failover.e2e-spec.ts): the replay log, subscriptions and deliveries are shared, so a cursor, a push
 * stream or a webhook subscription works the same whichever replica a request reaches.
 */
describe.each(ADAPTERS)('events on Redis across two replicas (%s)', (adapter) => {
  let redis: RedisServer;
  let raw: Redis;
  let a: RunningApp;
  let b: RunningApp;
  const receivers: McpWebhookReceiver[] = [];
  const prefix = `events-e2e-${adapter}`;

  const receiver = async () => {
    const started = await McpWebhookReceiver.start();
    receivers.push(started);
    return started;
  };
  const emit = (replica: RunningApp, data: object, eventId?: string) =>
    replica.app.get(McpEvents).emit('incident.opened', { ...INCIDENT, ...data }, eventId ? { eventId } : {});

  beforeAll(async () => {
    redis = await startRedisServer();
    raw = new Redis(redis.url);
    const replica = () =>
      startApp(adapter, {
        imports: [RedisEventsReplicaModule.forRoot({ url: redis.url, keyPrefix: prefix, commandTimeoutMs: 1_000 })],
      });
    [a, b] = await Promise.all([replica(), replica()]);
  });
  afterEach(async () => {
    for (const started of receivers.splice(0)) await started.close();
  });
  afterAll(async () => {
    await Promise.all([a && closeReplica(a), b && closeReplica(b)]);
    raw?.disconnect();
    await redis?.dispose();
  });

  it('E-16, E-19: a poll cursor taken on A resumes on B with nothing lost or repeated, events emitted on either', async () => {
    const args = { service: 'poll-shared' };
    const start = resultOf(
      await eventsPost(a.mcpUrl, 'events/poll', { name: 'incident.opened', arguments: args, cursor: null }),
    );
    await emit(a, { id: 'P-1', service: 'poll-shared' }, 'evt_p1');
    await emit(b, { id: 'P-2', service: 'poll-shared' }, 'evt_p2');
    await emit(a, { id: 'P-x', service: 'someone-else' }, 'evt_px');
    const first = resultOf(
      await eventsPost(b.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: args,
        cursor: start.cursor,
        maxEvents: 1,
      }),
    );
    expect(first).toMatchObject({ truncated: false, hasMore: true });
    expect(first.events.map((event: { eventId: string }) => event.eventId)).toEqual(['evt_p1']);
    const second = resultOf(
      await eventsPost(a.mcpUrl, 'events/poll', { name: 'incident.opened', arguments: args, cursor: first.cursor }),
    );
    expect(second.events.map((event: { eventId: string }) => event.eventId)).toEqual(['evt_p2']);
    expect(second.truncated).toBe(false);
    const third = resultOf(
      await eventsPost(b.mcpUrl, 'events/poll', { name: 'incident.opened', arguments: args, cursor: second.cursor }),
    );
    expect(third.events).toEqual([]);
    // The cursor stays bound to its subscription on every replica.
    errorOf(
      await eventsPost(b.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: { service: 'other' },
        cursor: second.cursor,
      }),
      -32602,
    );
  });

  it('E-21, E-22: a push stream on B hears what A and B emit, once each and in log order; a stream resumed on A from its cursor misses nothing', async () => {
    const client = await McpTestingClient.connect(b.app);
    const other = await McpTestingClient.connect(a.app);
    const stream = await client.streamEvents('incident.opened', { service: 'push-shared' });
    try {
      await emit(a, { id: 'S-1', service: 'push-shared' }, 'evt_s1');
      await emit(b, { id: 'S-2', service: 'push-shared' }, 'evt_s2');
      await emit(a, { id: 'S-3', service: 'push-shared' }, 'evt_s3');
      const heard = [await stream.nextEvent(), await stream.nextEvent(), await stream.nextEvent()];
      expect(heard.map((event) => event.eventId)).toEqual(['evt_s1', 'evt_s2', 'evt_s3']);
      const resumed = await other.streamEvents(
        'incident.opened',
        { service: 'push-shared' },
        { cursor: heard[0].cursor },
      );
      try {
        expect(resumed.active.truncated).toBe(false);
        expect([(await resumed.nextEvent()).eventId, (await resumed.nextEvent()).eventId]).toEqual([
          'evt_s2',
          'evt_s3',
        ]);
      } finally {
        await resumed.close();
      }
      await sleep(100);
      expect(stream.notifications.filter((frame) => frame.method === 'notifications/events/event')).toHaveLength(3);
    } finally {
      await stream.close();
    }
  });

  it('E-30, E-31, E-37, E-41: a webhook subscribed on A gets an event emitted on B, signed; a refresh on B finds the same subscription; an unsubscribe on B stops it', async () => {
    const target = await receiver();
    const params = {
      name: 'incident.opened',
      arguments: { service: 'hook-shared' },
      delivery: { url: target.url, secret: target.secret },
    };
    const created = resultOf(await eventsPost(a.mcpUrl, 'events/subscribe', params, 'alice'));
    expect(created).not.toHaveProperty('deliveryStatus');
    await emit(b, { id: 'W-1', service: 'hook-shared' }, 'evt_w1');
    const delivery = await target.nextEvent();
    expect(delivery.verified).toBe(true);
    expect(delivery.headers['webhook-id']).toBe('evt_w1');
    expect(delivery.headers['x-mcp-subscription-id']).toBe(created.id);
    expect(delivery.json).toMatchObject({ eventId: 'evt_w1', data: { incidentId: 'W-1' }, cursor: expect.any(String) });
    // Its cursor polls on either replica.
    const polled = resultOf(
      await eventsPost(a.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: { service: 'hook-shared' },
        cursor: delivery.json.cursor,
      }),
    );
    expect(polled.events).toEqual([]);
    await untilAsync(
      async () =>
        resultOf(await eventsPost(b.mcpUrl, 'events/subscribe', params, 'alice')).deliveryStatus?.lastDeliveryAt !==
        undefined,
      3_000,
      'the delivery recorded on the shared subscription',
    );
    const refreshed = resultOf(await eventsPost(b.mcpUrl, 'events/subscribe', params, 'alice'));
    expect(refreshed).toMatchObject({ id: created.id, deliveryStatus: { active: true, lastError: null } });
    resultOf(
      await eventsPost(
        b.mcpUrl,
        'events/unsubscribe',
        { name: 'incident.opened', arguments: { service: 'hook-shared' }, delivery: { url: target.url } },
        'alice',
      ),
    );
    await emit(a, { id: 'W-2', service: 'hook-shared' }, 'evt_w2');
    await sleep(300);
    expect(target.events.map((event) => event.json.eventId)).toEqual(['evt_w1']);
  });

  it('E-39, E-42, E-43: a receiver answering 500 three times then 200 gets the event acknowledged once, every attempt with the same webhook-id and body', async () => {
    const target = await receiver();
    resultOf(
      await eventsPost(
        b.mcpUrl,
        'events/subscribe',
        {
          name: 'incident.opened',
          arguments: { service: 'flaky' },
          delivery: { url: target.url, secret: target.secret },
        },
        'alice',
      ),
    );
    target.respondWith(500, 500, 500);
    await emit(a, { id: 'F-1', service: 'flaky' }, 'evt_flaky');
    await until(() => target.events.some((event) => event.status === 200), 10_000, 'the acknowledged attempt');
    await sleep(300);
    expect(target.events.map((event) => event.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(target.events.map((event) => event.headers['webhook-id']))).toEqual(new Set(['evt_flaky']));
    expect(new Set(target.events.map((event) => event.body)).size).toBe(1);
    expect(target.events.every((event) => event.verified)).toBe(true);
  });

  it('E-19, E-28, E-29, E-14: bad input on Redis-backed replicas is a clear -32602 and nothing is stored: tampered, foreign and expired cursors, bad secrets, plain-http callbacks, oversized arguments', async () => {
    const args = { service: 'bad-input' };
    const poll = (replica: RunningApp, cursor: unknown) =>
      eventsPost(replica.mcpUrl, 'events/poll', { name: 'incident.opened', arguments: args, cursor });
    const { cursor } = resultOf(await poll(a, null));
    const tampered = `${cursor.slice(0, -4)}${cursor.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect(errorOf(await poll(b, tampered), -32602).data?.reason).toBeDefined();
    // A cursor another server sealed (its own requestState keys) is foreign here.
    const other = await startApp(adapter, {
      imports: [
        RedisEventsReplicaModule.forRoot(
          { url: redis.url, keyPrefix: `${prefix}-other`, commandTimeoutMs: 1_000 },
          { requestState: { keys: [Buffer.alloc(32, 3).toString('base64')] } },
        ),
      ],
    });
    try {
      const foreign = resultOf(
        await eventsPost(other.mcpUrl, 'events/poll', { name: 'incident.opened', arguments: args, cursor: null }),
      ).cursor;
      errorOf(await poll(a, foreign), -32602);
    } finally {
      await closeReplica(other);
    }
    // Expired: a replica with a short cursorTtlMs on the same log refuses the cursor once it is older.
    const strict = await startApp(adapter, {
      imports: [
        RedisEventsReplicaModule.forRoot(
          { url: redis.url, keyPrefix: prefix, commandTimeoutMs: 1_000 },
          { events: { cursorTtlMs: 100 } },
        ),
      ],
    });
    try {
      await sleep(200);
      expect(errorOf(await poll(strict, cursor), -32602).data?.reason).toMatch(/^expired/);
    } finally {
      await closeReplica(strict);
    }
    const before = (await raw.keys(`${prefix}:events:wh:sub:*`)).length;
    const target = await receiver();
    const subscribe = (delivery: Record<string, unknown>, subscriptionArgs: Record<string, unknown> = args) =>
      eventsPost(
        a.mcpUrl,
        'events/subscribe',
        { name: 'incident.opened', arguments: subscriptionArgs, delivery },
        'alice',
      );
    for (const secret of [
      'whsec_short',
      `whsec_${Buffer.alloc(23, 1).toString('base64')}`,
      Buffer.alloc(32, 1).toString('base64'),
    ]) {
      const refused = errorOf(await subscribe({ url: target.url, secret }), -32602);
      expect(JSON.stringify(refused)).not.toContain(secret);
    }
    errorOf(await subscribe({ url: 'http://127.0.0.2:9/hook', secret: target.secret }), -32602);
    errorOf(await subscribe({ url: target.url, secret: target.secret }, { service: 'x'.repeat(10_000) }), -32602);
    expect((await raw.keys(`${prefix}:events:wh:sub:*`)).length).toBe(before);
    await emit(a, { id: 'B-1', service: 'bad-input' }, 'evt_bad_input');
    await sleep(200);
    expect(target.requests.filter((request) => request.kind !== 'verification')).toEqual([]);
  });

  it('E-34, E-58: a webhook secret is never in Redis in clear; subscriptions expire in Redis at refreshBefore', async () => {
    const target = await receiver();
    const granted = resultOf(
      await eventsPost(
        a.mcpUrl,
        'events/subscribe',
        {
          name: 'incident.opened',
          arguments: { service: 'at-rest' },
          delivery: { url: target.url, secret: target.secret },
          ttlMs: 120_000,
        },
        'alice',
      ),
    );
    const secret = target.secret.slice('whsec_'.length);
    const decoded = Buffer.from(secret, 'base64');
    const keys = await raw.keys(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const type = await raw.type(key);
      const dump =
        type === 'string'
          ? await raw.get(key)
          : type === 'hash'
            ? JSON.stringify(await raw.hgetall(key))
            : type === 'zset'
              ? JSON.stringify(await raw.zrange(key, '0', '-1'))
              : type === 'stream'
                ? JSON.stringify(await raw.xrange(key, '-', '+'))
                : '';
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(decoded.toString('hex'));
      expect(dump).not.toContain('whsec_');
    }
    const subscriptionKeys = keys.filter((key) => key.startsWith(`${prefix}:events:wh:sub:`));
    const ttls = await Promise.all(subscriptionKeys.map((key) => raw.pttl(key)));
    const expected = Date.parse(granted.refreshBefore) - Date.now();
    expect(ttls.some((ttl) => Math.abs(ttl - expected) < 2_000)).toBe(true);
  });
});
