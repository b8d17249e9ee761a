import { Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { getMcpRegistryToken, McpModule, type McpModuleOptions, type McpRegistry } from 'nest-mcp';
import { McpRedis, McpRedisModule, RedisRegistryState } from 'nest-mcp-redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * The registry state per server on a real redis-server: `McpRedis.serverOptions` gives a server with `include` (or
 * named by `{ server }`) the state of its name alone (`<keyPrefix>:registry:server:<name>`), and a server without
 * either today's `<keyPrefix>:registry`, so two named servers of one application keep their runtime changes apart;
 * `McpModule` refuses to start a server with `include` given the unscoped state, or one given another server's.
 */

@Module({})
class AdminModule {}

@Module({})
class ShopModule {}

/** The registry state `serverOptions` gives a server of these options. */
function stateOf(redis: McpRedis, options: McpModuleOptions & { include?: unknown[] }): RedisRegistryState {
  return (redis.serverOptions(options) as McpModuleOptions).registryState as RedisRegistryState;
}

/** A valid requestState key (32 bytes): the applications below start. */
const keys = [Buffer.alloc(32, 5).toString('base64')];

describe('RedisRegistryState per named server', () => {
  let redis: RedisServer;
  let moduleRef: TestingModule;
  let mcpRedis: McpRedis;
  let probe: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    probe.on('error', () => undefined);
    await probe.connect();
    moduleRef = await Test.createTestingModule({ imports: [McpRedisModule.forRoot({ url: redis.url })] }).compile();
    await moduleRef.init();
    mcpRedis = moduleRef.get(McpRedis);
  });

  afterAll(async () => {
    probe?.disconnect();
    await moduleRef?.close();
    await redis?.dispose();
  });

  it('gives each named server with include its own state, and a server without include the default one', async () => {
    const admin = stateOf(mcpRedis, {
      name: 'admin',
      version: '1.0.0',
      include: [AdminModule],
      requestState: { keys },
    });
    const shop = stateOf(mcpRedis, { name: 'shop', version: '1.0.0', include: [ShopModule], requestState: { keys } });
    const plain = stateOf(mcpRedis, { name: 'ops', version: '1.0.0', requestState: { keys } });
    expect(plain).toBe(mcpRedis.registryState);
    expect(admin).not.toBe(shop);
    expect(stateOf(mcpRedis, { name: 'admin', version: '1', include: [], requestState: { keys } })).toBe(admin);

    await admin.commit('tool:reset_cache', { disabled: true });
    await shop.commit('tool:checkout', { disabled: true });
    await plain.commit('tool:status', { disabled: true });

    expect((await admin.read()).records).toEqual({ 'tool:reset_cache': { disabled: true } });
    expect((await shop.read()).records).toEqual({ 'tool:checkout': { disabled: true } });
    expect((await plain.read()).records).toEqual({ 'tool:status': { disabled: true } });

    // Today's key still holds the state of a server without include: existing deployments keep theirs.
    const flat = await moduleRef.get(McpRedis).registryState.read();
    expect(Object.keys(flat.records)).toEqual(['tool:status']);
    // One derivation of the keys for both: the records' hash, its token beside it.
    expect((await probe.keys('nest-mcp:registry*')).sort()).toEqual([
      'nest-mcp:registry',
      'nest-mcp:registry:server:admin',
      'nest-mcp:registry:server:admin:token',
      'nest-mcp:registry:server:shop',
      'nest-mcp:registry:server:shop:token',
      'nest-mcp:registry:token',
    ]);
    expect(admin.server).toBe('admin');
    expect(plain.server).toBeUndefined();
    expect(admin.forServer('shop')).toBe(shop);
    expect(() => plain.forServer('')).toThrow(/non-empty string/);
  });

  it('names the server with serverOptions(options, { server }), and refuses a { server } that is not its name', () => {
    const options: McpModuleOptions = { name: 'admin', version: '1.0.0', requestState: { keys } };
    expect(mcpRedis.serverOptions(options, { server: 'admin' }).registryState).toBe(
      mcpRedis.registryState.forServer('admin'),
    );
    expect(() =>
      mcpRedis.serverOptions({ name: 'admin', version: '1.0.0', requestState: { keys } }, { server: 'shop' }),
    ).toThrow(/\{ server: "shop" \} must be the server's name \(options.name is "admin"\)/);
  });

  /** An application with the admin server of `useFactory`'s options (forRootAsync, `include` beside it). */
  const adminApp = (useFactory: (redis: McpRedis) => McpModuleOptions) =>
    Test.createTestingModule({
      imports: [
        McpRedisModule.forRoot({ url: redis.url }),
        McpModule.forRootAsync({ name: 'admin', include: [AdminModule], inject: [McpRedis], useFactory }),
        AdminModule,
      ],
    }).compile();

  it('refuses to start a server with include given the unscoped state, or the state of another server', async () => {
    await expect(
      adminApp((shared) => shared.serverOptions({ name: 'admin', version: '1.0.0', requestState: { keys } })),
    ).rejects.toThrow(
      /McpModule "admin": the server has "include" but its registryState is the unscoped one.*redis\.serverOptions\(options, \{ server: 'admin' \}\)/,
    );
    await expect(
      adminApp((shared) =>
        // With include among the options, serverOptions names the server by itself.
        shared.serverOptions({ name: 'admin', version: '1.0.0', requestState: { keys }, include: [AdminModule] }),
      ).then(async (app) => {
        await app.close();
        return 'started';
      }),
    ).resolves.toBe('started');
    await expect(
      adminApp((shared) => ({
        ...shared.serverOptions({ name: 'admin', version: '1.0.0', requestState: { keys } }, { server: 'admin' }),
        registryState: shared.registryState.forServer('shop'),
      })),
    ).rejects.toThrow(/McpModule "admin": its registryState is the one of the server "shop"/);
  });

  it("gives a named server its own event bus, tasks and events backends, and refuses another server's", async () => {
    const own: McpModuleOptions = mcpRedis.serverOptions(
      { name: 'admin', version: '1.0.0', requestState: { keys } },
      { server: 'admin' },
    );
    const admin = mcpRedis.forServer('admin');
    expect(mcpRedis.forServer('admin')).toBe(admin); // one set of backends per name
    expect(own.eventBus).toBe(admin.eventBus);
    expect(own.tasks).toMatchObject({ store: admin.taskStore, runner: admin.taskRunner });
    expect(own.events).toMatchObject({
      store: admin.eventStore,
      webhooks: { store: admin.webhookSubscriptionStore, queue: admin.webhookDeliveryQueue },
    });
    for (const backend of Object.values(admin)) if (typeof backend === 'object') expect(backend.server).toBe('admin');
    // The module's own backends (a single server's) belong to no named server.
    expect([mcpRedis.eventBus.server, mcpRedis.taskRunner.server, mcpRedis.eventStore.server]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(() => mcpRedis.forServer('')).toThrow(/non-empty string/);

    const shop = mcpRedis.forServer('shop');
    const foreign: Array<[string, (options: McpModuleOptions) => McpModuleOptions]> = [
      ['eventBus', (options) => ({ ...options, eventBus: shop.eventBus })],
      ['tasks.store', (options) => ({ ...options, tasks: { ...options.tasks, store: shop.taskStore } })],
      ['tasks.runner', (options) => ({ ...options, tasks: { ...options.tasks, runner: shop.taskRunner } })],
      ['events.store', (options) => ({ ...options, events: { ...options.events, store: shop.eventStore } })],
      [
        'events.webhooks.store',
        (options) => ({
          ...options,
          events: { ...options.events, webhooks: { store: shop.webhookSubscriptionStore } },
        }),
      ],
      [
        'events.webhooks.queue',
        (options) => ({ ...options, events: { ...options.events, webhooks: { queue: shop.webhookDeliveryQueue } } }),
      ],
    ];
    for (const [option, swap] of foreign) {
      await expect(
        adminApp((shared) =>
          swap(shared.serverOptions({ name: 'admin', version: '1.0.0', requestState: { keys } }, { server: 'admin' })),
        ),
      ).rejects.toThrow(`McpModule "admin": its ${option} is the one of the server "shop"`);
    }
  });

  it('refuses to start two servers on one task queue: the second would have its rounds run by the first', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpRedisModule.forRoot({ url: redis.url }),
        // Two servers without include on the module's backends, but for the webhook queue the second has its own:
        // the task runner is then what they share.
        McpModule.forRootAsync({
          name: 'one',
          path: '/one',
          inject: [McpRedis],
          useFactory: (shared: McpRedis) =>
            shared.serverOptions({ name: 'one', version: '1.0.0', requestState: { keys } }),
        }),
        McpModule.forRootAsync({
          name: 'two',
          path: '/two',
          inject: [McpRedis],
          useFactory: (shared: McpRedis) => ({
            ...shared.serverOptions({ name: 'two', version: '1.0.0', requestState: { keys } }),
            events: { webhooks: { queue: shared.forServer('two').webhookDeliveryQueue } },
          }),
        }),
      ],
    }).compile();
    try {
      await expect(moduleRef.init()).rejects.toThrow(
        /BullMqTaskRunner: a server runs its task rounds here already.*redis\.serverOptions\(options, \{ server: name \}\)/,
      );
    } finally {
      await moduleRef.close();
    }
  });

  it('a forRootAsync server named by { server } commits its runtime changes under its own key', async () => {
    const app = await adminApp((shared) =>
      shared.serverOptions({ name: 'admin', version: '1.0.0', requestState: { keys } }, { server: 'admin' }),
    );
    try {
      await app.init();
      const registry = app.get<McpRegistry>(getMcpRegistryToken('admin'));
      registry.provideHandler('flush', () => 'flushed');
      await registry.registerTool({ name: 'flush_queue' }, 'flush');
      expect(await probe.hget('nest-mcp:registry:server:admin', 'tools:flush_queue')).toBeTruthy();
      expect(await probe.hexists('nest-mcp:registry', 'tools:flush_queue')).toBe(0);
      registry.removeTool('flush_queue');
      await registry.settled();
      expect(await probe.hexists('nest-mcp:registry:server:admin', 'tools:flush_queue')).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('tells only the listeners of the server whose state changed', async () => {
    const admin = mcpRedis.registryState.forServer('admin');
    const shop = mcpRedis.registryState.forServer('shop');
    let adminHeard = 0;
    let shopHeard = 0;
    const stopAdmin = admin.onChange(() => void adminHeard++);
    const stopShop = shop.onChange(() => void shopHeard++);
    try {
      // The subscriptions are in place once a commit on the server's own state is heard.
      for (;;) {
        await admin.commit('tool:probe', undefined);
        if (adminHeard > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const before = shopHeard;
      const tokenBefore = await shop.token();
      await admin.commit('tool:reset_cache', undefined);
      // A barrier: the shop's own commit is heard after admin's announcement reached every subscriber.
      await shop.commit('tool:checkout', undefined);
      for (;;) {
        if (shopHeard > before) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(shopHeard).toBe(before + 1);
      expect(await shop.token()).not.toBe(tokenBefore);
      expect((await admin.read()).records).toEqual({});
    } finally {
      stopAdmin();
      stopShop();
    }
  });
});
