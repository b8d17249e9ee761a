import { Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { McpModuleOptions } from 'nest-mcp';
import { McpRedis, McpRedisModule, RedisRegistryState } from 'nest-mcp-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * The registry state per server on a real redis-server: `McpRedis.serverOptions` gives a server with `include` the
 * state of its name alone (`<keyPrefix>:registry:server:<name>`), and a server without `include` today's
 * `<keyPrefix>:registry`, so two named servers of one application keep their runtime changes apart.
 */

@Module({})
class AdminModule {}

@Module({})
class ShopModule {}

/** The registry state `serverOptions` gives a server of these options. */
function stateOf(redis: McpRedis, options: McpModuleOptions & { include?: unknown[] }): RedisRegistryState {
  return (redis.serverOptions(options) as McpModuleOptions).registryState as RedisRegistryState;
}

const keys = ['c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA=='];

describe('RedisRegistryState per named server', () => {
  let redis: RedisServer;
  let moduleRef: TestingModule;
  let mcpRedis: McpRedis;

  beforeAll(async () => {
    redis = await startRedisServer();
    moduleRef = await Test.createTestingModule({ imports: [McpRedisModule.forRoot({ url: redis.url })] }).compile();
    await moduleRef.init();
    mcpRedis = moduleRef.get(McpRedis);
  });

  afterAll(async () => {
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
