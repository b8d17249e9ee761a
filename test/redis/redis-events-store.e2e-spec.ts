import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import type { McpLoggedEvent, McpStoredEvent, McpWebhookSubscriptionRecord } from 'nest-mcp/backend';
import { McpRedisModule, RedisEventStore, RedisWebhookSubscriptionStore } from 'nest-mcp-redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { sleep, until } from '../support/wait.util.js';

const RETENTION = { windowMs: 600_000, maxEvents: 100 };

/** One occurrence as `McpEvents.emit` stores it. */
function occurrence(name: string, eventId: string, appendedAt = Date.now()): McpStoredEvent {
  return { eventId, name, timestamp: new Date(appendedAt).toISOString(), data: { eventId }, appendedAt };
}

/**
 * The events extension's Redis components against a real redis-server, each replica a Nest module of its own on one
 * key prefix: the replay log on Redis Streams (positions, trimming, truncation, the live feed on every replica) and
 * the webhook subscription store (TTL, indexes, in-flight bookkeeping, consents).
 */
describe('the events extension on Redis: stores against a real redis-server', () => {
  let redis: RedisServer;
  let raw: Redis;
  const modules: TestingModule[] = [];
  let prefixes = 0;

  /** `count` replicas (modules) on one fresh prefix. */
  async function replicas(count: number, prefix = `events-store-${++prefixes}`): Promise<TestingModule[]> {
    const opened: TestingModule[] = [];
    for (let index = 0; index < count; index++) {
      const moduleRef = await Test.createTestingModule({
        imports: [McpRedisModule.forRoot({ url: redis.url, keyPrefix: prefix, commandTimeoutMs: 1_000 })],
      }).compile();
      await moduleRef.init();
      opened.push(moduleRef);
      modules.push(moduleRef);
    }
    return opened;
  }
  const logs = async (count: number, prefix?: string) =>
    (await replicas(count, prefix)).map((moduleRef) => moduleRef.get(RedisEventStore));

  beforeAll(async () => {
    redis = await startRedisServer();
    raw = new Redis(redis.url);
  });
  afterEach(async () => {
    await Promise.all(modules.splice(0).map((moduleRef) => moduleRef.close()));
  });
  afterAll(async () => {
    raw?.disconnect();
    await redis?.dispose();
  });

  describe('RedisEventStore (the replay log on Redis Streams)', () => {
    it('positions from one replica resume on another, in log order, compared as strings; nothing lost or repeated', async () => {
      const [a, b] = await logs(2);
      const start = await a.head('incident.opened');
      const positions: string[] = [];
      for (let index = 1; index <= 5; index++)
        positions.push((await (index % 2 ? a : b).append(occurrence('incident.opened', `e${index}`), RETENTION))!);
      expect([...positions].sort()).toEqual(positions);
      expect(positions[0] > start).toBe(true);
      expect(await b.head('incident.opened')).toBe(positions[4]);
      const first = await b.read(
        'incident.opened',
        { position: start, inclusive: false },
        { limit: 3, retention: RETENTION },
      );
      expect(first.events.map((logged) => logged.event.eventId)).toEqual(['e1', 'e2', 'e3']);
      expect(first).toMatchObject({ truncated: false, more: true, next: { position: positions[2], inclusive: false } });
      const rest = await a.read('incident.opened', first.next, { limit: 10, retention: RETENTION });
      expect(rest.events.map((logged) => logged.event.eventId)).toEqual(['e4', 'e5']);
      expect(rest).toMatchObject({ truncated: false, more: false });
      const none = await b.read('incident.opened', rest.next, { limit: 10, retention: RETENTION });
      expect(none).toMatchObject({ events: [], truncated: false, more: false, next: rest.next });
      // Inclusive (a webhook watermark naming an event still in flight): that event again.
      const at = await b.read(
        'incident.opened',
        { position: positions[3], inclusive: true },
        { limit: 10, retention: RETENTION },
      );
      expect(at.events.map((logged) => logged.event.eventId)).toEqual(['e4', 'e5']);
      // Each type has a log of its own.
      expect(
        (await a.read('deploy.finished', { position: start, inclusive: false }, { limit: 10, retention: RETENTION }))
          .events,
      ).toEqual([]);
    });

    it('keeps at most maxEvents: a position before what was trimmed reads truncated, from the oldest kept', async () => {
      const [log] = await logs(1);
      const retention = { windowMs: 600_000, maxEvents: 3 };
      const start = await log.head('t');
      for (let index = 1; index <= 6; index++) await log.append(occurrence('t', `e${index}`), retention);
      expect(await raw.xlen(`events-store-${prefixes}:events:log:t`)).toBe(3);
      const read = await log.read('t', { position: start, inclusive: false }, { limit: 10, retention });
      expect(read.truncated).toBe(true);
      expect(read.events.map((logged) => logged.event.eventId)).toEqual(['e4', 'e5', 'e6']);
      // From the oldest kept, nothing was missed.
      const after = await log.read(
        't',
        { position: read.events[0].position!, inclusive: false },
        { limit: 10, retention },
      );
      expect(after).toMatchObject({ truncated: false });
      expect(after.events.map((logged) => logged.event.eventId)).toEqual(['e5', 'e6']);
    });

    it("keeps the replay window (trimmed by the ids' time on Redis) and skips what maxAgeMs excludes: both truncated", async () => {
      const [log] = await logs(1);
      const retention = { windowMs: 300, maxEvents: 100 };
      const start = await log.head('w');
      await log.append(occurrence('w', 'old'), retention);
      await sleep(400);
      await log.append(occurrence('w', 'new'), retention);
      const read = await log.read('w', { position: start, inclusive: false }, { limit: 10, retention });
      expect(read.truncated).toBe(true);
      expect(read.events.map((logged) => logged.event.eventId)).toEqual(['new']);
      const roomy = { windowMs: 600_000, maxEvents: 100 };
      const from = await log.head('m');
      await log.append(occurrence('m', 'm1', Date.now() - 5_000), roomy);
      await log.append(occurrence('m', 'm2'), roomy);
      const recent = await log.read(
        'm',
        { position: from, inclusive: false },
        { limit: 10, notBefore: Date.now() - 1_000, retention: roomy },
      );
      expect(recent.truncated).toBe(true);
      expect(recent.events.map((logged) => logged.event.eventId)).toEqual(['m2']);
    });

    it('a position of a log that is gone (Redis emptied) or of another server resumes truncated at the oldest event, never fails', async () => {
      const prefix = `events-store-${++prefixes}`;
      const [log] = await logs(1, prefix);
      await log.append(occurrence('g', 'before'), RETENTION);
      const old = await log.head('g');
      await raw.del(`${prefix}:events:log:g`, `${prefix}:events:epochs`, `${prefix}:events:trimmed`);
      await log.append(occurrence('g', 'after'), RETENTION);
      const read = await log.read('g', { position: old, inclusive: false }, { limit: 10, retention: RETENTION });
      expect(read.truncated).toBe(true);
      expect(read.events.map((logged) => logged.event.eventId)).toEqual(['after']);
      const [other] = await logs(1);
      await other.append(occurrence('g', 'elsewhere'), RETENTION);
      const foreign = await other.read('g', { position: old, inclusive: false }, { limit: 10, retention: RETENTION });
      expect(foreign.truncated).toBe(true);
      expect(foreign.events.map((logged) => logged.event.eventId)).toEqual(['elsewhere']);
      for (const junk of ['', 'nonsense', 'ffffffffffff:99999999999999999999-0']) {
        expect(
          (await log.read('g', { position: junk, inclusive: false }, { limit: 10, retention: RETENTION })).truncated,
        ).toBe(true);
      }
    });

    it('every replica hears every append once, in log order, the emitting one included; live-only types with position null', async () => {
      const [a, b] = await logs(2);
      const heard: Record<'a' | 'b', McpLoggedEvent[]> = { a: [], b: [] };
      const stops = [a.subscribe((logged) => heard.a.push(logged)), b.subscribe((logged) => heard.b.push(logged))];
      await Promise.all([a.onApplicationBootstrap(), b.onApplicationBootstrap()]);
      const appended: Array<string | null> = [];
      for (let index = 0; index < 20; index++)
        appended.push(await (index % 2 ? a : b).append(occurrence('live', `l${index}`), RETENTION));
      appended.push(await a.append(occurrence('live.only', 'nothing-kept'), undefined));
      await until(() => heard.a.length === 21 && heard.b.length === 21, 3_000, 'every replica to hear every append');
      for (const side of [heard.a, heard.b]) {
        expect(side.map((logged) => logged.position)).toEqual(appended);
        expect(side.at(-1)).toMatchObject({ position: null, event: { eventId: 'nothing-kept', name: 'live.only' } });
      }
      stops.forEach((stop) => stop());
    });

    it('a replica whose subscriber lost Redis catches up from the log: every event heard once, in order', async () => {
      const [emitter, listener] = await logs(2);
      const heard: string[] = [];
      listener.subscribe((logged) => heard.push(logged.event.eventId));
      await listener.onApplicationBootstrap();
      await emitter.append(occurrence('c', 'c0'), RETENTION);
      await until(() => heard.length === 1, 3_000, 'the first event');
      // Cut the subscriber connections; append while they reconnect.
      await raw.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      for (let index = 1; index <= 10; index++) await emitter.append(occurrence('c', `c${index}`), RETENTION);
      await until(() => heard.length >= 11, 5_000, 'the events missed during the outage');
      await emitter.append(occurrence('c', 'c11'), RETENTION);
      await until(() => heard.length >= 12, 3_000, 'the next live event');
      expect(heard).toEqual(Array.from({ length: 12 }, (_, index) => `c${index}`));
    });
  });

  describe('RedisWebhookSubscriptionStore', () => {
    const subscription = (
      key: string,
      overrides: Partial<McpWebhookSubscriptionRecord> = {},
    ): McpWebhookSubscriptionRecord => ({
      key,
      id: `sub_${key.slice(0, 8)}`,
      incarnation: 'inc-1',
      principal: 'alice',
      url: 'https://hooks.example.com/mcp?route=7',
      name: 'incident.opened',
      arguments: { severity: 'P1', tags: {} },
      sealedSecret: 'v1.sealed-not-a-secret',
      expiresAt: Date.now() + 60_000,
      createdAt: Date.now(),
      delivery: {},
      ...overrides,
    });
    const keyOf = (digit: string) => digit.repeat(64);
    const stores = async (count: number) =>
      (await replicas(count)).map((moduleRef) => moduleRef.get(RedisWebhookSubscriptionStore));

    it('a subscription put on one replica is seen on another, exactly as stored, expiring in Redis at its refreshBefore', async () => {
      const [a, b] = await stores(2);
      expect(a.durable).toBe(true);
      const record = subscription(keyOf('a'));
      await a.put(record);
      expect(await b.get(record.key)).toEqual(record);
      expect(await b.listByName('incident.opened')).toEqual([record]);
      expect(await b.countByPrincipal('alice')).toBe(1);
      const ttl = await raw.pttl(`events-store-${prefixes}:events:wh:sub:${record.key}`);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await b.put({ ...record, expiresAt: null });
      expect(await raw.pttl(`events-store-${prefixes}:events:wh:sub:${record.key}`)).toBe(-1);
      expect(await a.delete(record.key)).toBe(true);
      expect(await b.get(record.key)).toBeUndefined();
      expect(await b.listByName('incident.opened')).toEqual([]);
      expect(await b.countByPrincipal('alice')).toBe(0);
      expect(await a.delete(record.key)).toBe(false);
    });

    it('an expired subscription is gone from get, the type index and the quota', async () => {
      const [store] = await stores(1);
      await store.put(subscription(keyOf('b'), { expiresAt: Date.now() + 150 }));
      await store.put(subscription(keyOf('c')));
      expect(await store.countByPrincipal('alice')).toBe(2);
      await sleep(250);
      expect(await store.get(keyOf('b'))).toBeUndefined();
      expect((await store.listByName('incident.opened')).map((record) => record.key)).toEqual([keyOf('c')]);
      expect(await store.countByPrincipal('alice')).toBe(1);
    });

    it('in-flight positions give the oldest (as strings); a new incarnation forgets them; outcomes only for the same incarnation', async () => {
      const [a, b] = await stores(2);
      const key = keyOf('d');
      await a.put(subscription(key));
      await a.trackPending(key, 'e:0002');
      await b.trackPending(key, 'e:0001');
      await a.trackPending(key, '~live-event');
      expect(await b.pending(key)).toEqual({ oldest: 'e:0001', count: 3 });
      await b.settlePending(key, 'e:0001');
      expect(await a.pending(key)).toEqual({ oldest: 'e:0002', count: 2 });
      await a.recordDelivery(key, 'inc-1', { lastError: 'http_5xx', failedSince: 5 });
      await a.recordDelivery(key, 'inc-old', { lastDeliveryAt: 9 });
      expect((await b.get(key))!.delivery).toEqual({ lastError: 'http_5xx', failedSince: 5 });
      // A refresh (same incarnation) keeps what is in flight and the delivery state; a new incarnation starts clean.
      await b.put(subscription(key));
      expect((await a.pending(key)).count).toBe(2);
      expect((await b.get(key))!.delivery).toEqual({ lastError: 'http_5xx', failedSince: 5 });
      await b.put(subscription(key, { incarnation: 'inc-2' }));
      expect(await a.pending(key)).toEqual({ count: 0 });
      // Nothing is tracked for a subscription that does not exist.
      await a.trackPending(keyOf('e'), 'e:0003');
      expect(await a.pending(keyOf('e'))).toEqual({ count: 0 });
    });

    it('endpoint consents are per (principal, url) and expire', async () => {
      const [a, b] = await stores(2);
      await a.markVerified('alice', 'https://hooks.example.com/a', Date.now() + 60_000);
      await a.markVerified('alice', 'https://hooks.example.com/short', Date.now() + 150);
      expect(await b.verifiedUntil('alice', 'https://hooks.example.com/a')).toBeGreaterThan(Date.now());
      expect(await b.verifiedUntil('bob', 'https://hooks.example.com/a')).toBeUndefined();
      await sleep(250);
      expect(await b.verifiedUntil('alice', 'https://hooks.example.com/short')).toBeUndefined();
    });
  });
});
