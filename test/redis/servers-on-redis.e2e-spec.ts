import type { Type } from '@nestjs/common';
import { getMcpRegistryToken, type McpRegistry } from 'nest-mcp';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { closeReplica } from '../support/redis-replicas.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * Two named servers of one application on Redis, over HTTP (issue #28, item 4): the application of
 * docs/examples/servers/servers-on-redis.module.ts (`/mcp` and `/admin/mcp`, each with its own `include`, both through
 * `McpRedis.serverOptions(options, { server })` inside `McpModule.forRootAsync`), run as two replicas on one
 * redis-server. A runtime registration on the admin server of replica A is listed by the admin server of replica B and
 * by neither replica's `/mcp`, and the two servers' states live under distinct Redis keys.
 */

const STATE_KEY = Buffer.alloc(32, 28).toString('base64');

let redis: RedisServer;
let probe: Redis;
let AppModule: Type;
const env = { REDIS_URL: process.env.REDIS_URL, MCP_STATE_KEYS: process.env.MCP_STATE_KEYS };

beforeAll(async () => {
  redis = await startRedisServer();
  probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  probe.on('error', () => undefined);
  await probe.connect();
  // The example reads its Redis and keys from the environment when it is first imported, as an application does.
  process.env.REDIS_URL = redis.url;
  process.env.MCP_STATE_KEYS = STATE_KEY;
  ({ AppModule } = await import('../../docs/examples/servers/servers-on-redis.module.js'));
});

afterAll(async () => {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  probe?.disconnect();
  await redis?.dispose();
});

/** The tool names the server at `path` of `app` lists, through the official client. */
async function toolNames(app: RunningApp, path: '/mcp' | '/admin/mcp'): Promise<string[]> {
  const client = await connectClient(new URL(`${app.baseUrl}${path}`));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe.each(ADAPTERS)('two named servers on Redis, two replicas (%s)', (adapter) => {
  let a: RunningApp;
  let b: RunningApp;
  const admin = (app: RunningApp) => app.app.get<McpRegistry>(getMcpRegistryToken('admin'));
  const shop = (app: RunningApp) => app.app.get<McpRegistry>(getMcpRegistryToken('shop'));

  beforeAll(async () => {
    await probe.flushall(); // the other adapter's run left its state
    a = await startApp(adapter, { imports: [AppModule] });
    b = await startApp(adapter, { imports: [AppModule] });
    for (const replica of [a, b]) {
      admin(replica).provideHandler('drain-queue', () => 'drained');
      shop(replica).provideHandler('track-parcel', () => 'in transit');
    }
  });

  afterAll(async () => {
    for (const app of [a, b]) if (app) await closeReplica(app);
  });

  it('a tool registered on the admin server of A is listed and served by the admin server of B, not by /mcp', async () => {
    expect(await toolNames(b, '/admin/mcp')).toEqual(['purge_caches']);
    await admin(a).registerTool({ name: 'drain_queue', description: 'Drains the job queue' }, 'drain-queue');

    expect(await toolNames(b, '/admin/mcp')).toEqual(['drain_queue', 'purge_caches']);
    expect(await toolNames(a, '/admin/mcp')).toEqual(['drain_queue', 'purge_caches']);
    expect(await toolNames(a, '/mcp')).toEqual(['get_order']);
    expect(await toolNames(b, '/mcp')).toEqual(['get_order']);

    const client = await connectClient(new URL(`${b.baseUrl}/admin/mcp`));
    try {
      const result = await client.callTool({ name: 'drain_queue', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'drained' }]);
    } finally {
      await client.close();
    }
  });

  it("keeps each server's state under its own Redis keys, and none under the unscoped one", async () => {
    await shop(b).registerTool({ name: 'track_parcel', description: 'Tracks a parcel' }, 'track-parcel');
    expect(await toolNames(a, '/mcp')).toEqual(['get_order', 'track_parcel']);
    expect(await toolNames(a, '/admin/mcp')).toEqual(['drain_queue', 'purge_caches']);

    expect((await probe.keys('nest-mcp:registry*')).sort()).toEqual([
      'nest-mcp:registry:server:admin',
      'nest-mcp:registry:server:admin:token',
      'nest-mcp:registry:server:shop',
      'nest-mcp:registry:server:shop:token',
    ]);
    expect(await probe.hkeys('nest-mcp:registry:server:admin')).toEqual(['tools:drain_queue']);
    expect(await probe.hkeys('nest-mcp:registry:server:shop')).toEqual(['tools:track_parcel']);
    // No server follows the unscoped state: neither subscribed to its channel.
    const [, unscopedSubscribers] = (await probe.pubsub('NUMSUB', 'nest-mcp:registry')) as [string, number];
    expect(Number(unscopedSubscribers)).toBe(0);
  });
});
