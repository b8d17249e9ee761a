import type { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  Catalog,
  CachedCatalogModule,
  CatalogTools,
  cachedReplicaModule,
} from '../../docs/examples/ecosystem/caching.module.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient } from '../support/legacy-client.factory.js';
import { legacyRecordingFetch } from '../support/legacy-schema.validator.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { fetchAs } from '../support/principal.util.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { closeReplica, eventually } from '../support/redis-replicas.js';

/**
 * `@nestjs/cache-manager` on MCP calls through `McpCacheInterceptor` (nest-mcp/cache-manager, issue #30): read-only
 * tools, prompts and resource reads are cached per caller and canonical arguments (shared only with
 * `@McpCacheScope('public')`), `McpPublisher.resourceUpdated` invalidates, the reads' `ttlMs` / `cacheScope` hints
 * follow what is cached, on both wires; on Redis (Keyv, `@keyv/redis`) entries and invalidations are shared by replicas.
 */

/** A read that always reaches the server: the official client keeps reads for their `ttlMs` itself. */
const read = (client: Client, uri: string) => client.readResource({ uri }, { cacheMode: 'bypass' });

const textOf = (result: { contents: Array<{ text?: string }> }) => JSON.parse(result.contents[0].text!) as unknown;

describe.each(ADAPTERS)('caching with @nestjs/cache-manager (%s)', (adapter) => {
  let running: RunningApp;
  let runs: Catalog['runs'];
  const clients: Client[] = [];

  beforeEach(async () => {
    running = await startApp(adapter, { imports: [CachedCatalogModule] });
    runs = running.app.get(Catalog).runs;
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await running.close();
  });

  const connect = async (user: string) => {
    const client = await connectClient(running.mcpUrl, { fetch: fetchAs(user) });
    clients.push(client);
    return client;
  };

  it('caches a read-only tool per caller and canonical arguments; never a tool that is not read-only', async () => {
    const alice = await connect('alice');
    const first = await alice.callTool({ name: 'price', arguments: { sku: 'apple', currency: 'EUR' } });
    const again = await alice.callTool({ name: 'price', arguments: { currency: 'EUR', sku: 'apple' } }); // other key order
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(first.structuredContent).toEqual({ sku: 'apple', cents: 120, currency: 'EUR', quotedFor: 'alice' });
    expect(runs.price).toBe(1);

    await alice.callTool({ name: 'price', arguments: { sku: 'pear' } }); // other arguments
    expect(runs.price).toBe(2);
    const bob = await connect('bob');
    expect(
      (await bob.callTool({ name: 'price', arguments: { sku: 'apple', currency: 'EUR' } })).structuredContent,
    ).toMatchObject({ quotedFor: 'bob' });
    expect(runs.price).toBe(3); // another caller: its own entry

    await alice.callTool({ name: 'reserve', arguments: { sku: 'apple' } });
    await alice.callTool({ name: 'reserve', arguments: { sku: 'apple' } });
    expect(runs.reserve).toBe(2);
  });

  it('caches prompts per caller, and resource reads: shared when declared public, else per caller, with hints that match', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob');
    await alice.getPrompt({ name: 'pitch', arguments: { sku: 'apple' } });
    expect((await alice.getPrompt({ name: 'pitch', arguments: { sku: 'apple' } })).messages).toHaveLength(1);
    expect(runs.pitch).toBe(1);
    await bob.getPrompt({ name: 'pitch', arguments: { sku: 'apple' } });
    expect(runs.pitch).toBe(2);

    const shared = (await read(alice, 'catalog://skus')) as unknown as {
      contents: Array<{ text: string }>;
      ttlMs: number;
      cacheScope: string;
    };
    const sharedAgain = (await read(bob, 'catalog://skus')) as unknown as typeof shared;
    expect(textOf(sharedAgain)).toEqual(['apple', 'pear']);
    expect(runs.skus).toBe(1); // one entry for every caller
    // A client's copy never outlives the server's (@CacheTTL 10 s, below the configured 120 s), and may be shared.
    expect(shared.ttlMs).toBeLessThanOrEqual(10_000);
    expect(sharedAgain.ttlMs).toBeLessThanOrEqual(shared.ttlMs);
    expect(shared.cacheScope).toBe('public');

    const item = (await read(alice, 'catalog://skus/apple')) as unknown as typeof shared;
    await read(alice, 'catalog://skus/apple');
    expect(runs.item).toBe(1);
    expect(item.cacheScope).toBe('private'); // kept per caller: never for a shared cache
    expect(item.ttlMs).toBeLessThanOrEqual(60_000); // the cache's own ttl
    expect(item.ttlMs).toBeGreaterThan(0);
    await read(bob, 'catalog://skus/apple');
    expect(runs.item).toBe(2);
  });

  it('drops the cached reads of a resource when McpPublisher says it changed', async () => {
    const alice = await connect('alice');
    expect(textOf((await read(alice, 'catalog://skus/apple')) as never)).toMatchObject({ cents: 120 });
    await read(alice, 'catalog://skus');
    await running.app.get(CatalogTools).setPrice('apple', 99);
    expect(textOf((await read(alice, 'catalog://skus/apple')) as never)).toMatchObject({ cents: 99 });
    await read(alice, 'catalog://skus');
    expect(runs).toMatchObject({ item: 2, skus: 2 });
  });

  it('2025-11-25: the same cache in a session', async () => {
    const { client } = await connectLegacyClient(running.mcpUrl, { recorder: legacyRecordingFetch(fetchAs('carol')) });
    clients.push(client);
    const first = await client.callTool({ name: 'price', arguments: { sku: 'pear' } });
    const again = await client.callTool({ name: 'price', arguments: { sku: 'pear' } });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(first.structuredContent).toMatchObject({ cents: 90, quotedFor: 'carol' });
    expect(runs.price).toBe(1);
  });
});

describe.each(ADAPTERS)('caching on Redis (Keyv) across two replicas (%s)', (adapter) => {
  let redis: RedisServer;
  const replicas: RunningApp[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    const keys = [randomBytes(32).toString('base64')];
    for (let index = 0; index < 2; index++)
      replicas.push(await startApp(adapter, { imports: [cachedReplicaModule(redis.url, keys)] }));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    for (const replica of replicas) await closeReplica(replica);
    await redis?.dispose();
  });

  const runsOn = (index: number) => replicas[index].app.get(Catalog).runs;
  const clientOf = async (index: number, user: string) => {
    const client = await connectClient(replicas[index].mcpUrl, { fetch: fetchAs(user) });
    clients.push(client);
    return client;
  };

  it('an entry written by one replica is served by the other; a change published on one is seen on both', async () => {
    const [onA, onB] = [await clientOf(0, 'alice'), await clientOf(1, 'alice')];
    const fromA = await onA.callTool({ name: 'price', arguments: { sku: 'apple' } });
    const fromB = await onB.callTool({ name: 'price', arguments: { sku: 'apple' } });
    expect(fromB.structuredContent).toEqual(fromA.structuredContent);
    expect(runsOn(0).price + runsOn(1).price).toBe(1);

    await read(onA, 'catalog://skus/pear');
    await read(onB, 'catalog://skus/pear');
    expect(runsOn(0).item + runsOn(1).item).toBe(1);

    // The change happens on replica A (its catalog); B's next read of the resource runs B's handler again.
    replicas[1].app.get(Catalog).prices.set('pear', 75);
    await replicas[0].app.get(CatalogTools).setPrice('pear', 75);
    await eventually(
      async () => (textOf((await read(onB, 'catalog://skus/pear')) as never) as { cents: number }).cents === 75,
      5_000,
      'the change to reach replica B',
    );
    expect(runsOn(1).item).toBeGreaterThanOrEqual(1);
  });

  it('a generation marker the store lost (evicted, expired) never brings back an entry from before a change', async () => {
    const onA = await clientOf(0, 'dora');
    for (const replica of replicas) replica.app.get(Catalog).prices.set('plum', 150);
    expect(textOf((await read(onA, 'catalog://skus/plum')) as never)).toMatchObject({ cents: 150 });
    for (const replica of replicas) replica.app.get(Catalog).prices.set('plum', 60);
    await replicas[0].app.get(CatalogTools).setPrice('plum', 60);
    // What an `allkeys-lru` Redis (or a marker's TTL) does: every generation marker goes, the stale entry stays.
    const admin = new Redis(redis.url);
    try {
      const markers = await admin.keys('*nest-mcp:cache:gen*');
      expect(markers.length).toBeGreaterThanOrEqual(2);
      expect(await admin.ttl(markers[0])).toBeGreaterThan(0);
      await admin.del(...markers);
      expect((await admin.keys('*nest-mcp:cache:resources/read*')).length).toBeGreaterThanOrEqual(1);
    } finally {
      admin.disconnect();
    }
    const before = runsOn(0).item;
    expect(textOf((await read(onA, 'catalog://skus/plum')) as never)).toMatchObject({ cents: 60 });
    expect(runsOn(0).item).toBe(before + 1);
  });
});
