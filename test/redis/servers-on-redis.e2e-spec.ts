import type { Type } from '@nestjs/common';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { getMcpRegistryToken, type McpRegistry } from 'nest-mcp';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { setEnv } from '../support/env.util.js';
import { openExtTasksSession } from '../support/ext-tasks-session.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { closeReplica } from '../support/redis-replicas.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * Two named servers of one application on Redis, over HTTP (issue #28, item 4): the application of
 * docs/examples/servers/servers-on-redis.module.ts (`/mcp` and `/admin/mcp`, each with its own `include`, both through
 * `McpRedis.serverOptions(options, { server })` inside `McpModule.forRootAsync`), run as two replicas on one
 * redis-server. A runtime registration on the admin server of replica A is listed by the admin server of replica B and
 * by neither replica's `/mcp`, and the two servers' states live under distinct Redis keys. Each server's task rounds
 * run with its own handlers on its own BullMQ queue, whichever replica takes them, and its tasks are its own.
 */

const STATE_KEY = Buffer.alloc(32, 28).toString('base64');
const TASKS_META = requestMeta({
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
});

let redis: RedisServer;
let probe: Redis;
let AppModule: Type;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
  probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  probe.on('error', () => undefined);
  await probe.connect();
  // The example reads its Redis and keys from the environment when it is first imported, as an application does.
  restoreEnv = setEnv({ REDIS_URL: redis.url, MCP_STATE_KEYS: STATE_KEY });
  ({ AppModule } = await import('../../docs/examples/servers/servers-on-redis.module.js'));
});

afterAll(async () => {
  restoreEnv?.();
  probe?.disconnect();
  await redis?.dispose();
});

/** The example's task tools (asserted on their own below). */
const TASK_TOOLS = new Set(['pack_order', 'rebuild_index']);

/** The tool names but the task tools the server at `path` of `app` lists, through the official client. */
async function toolNames(app: RunningApp, path: '/mcp' | '/admin/mcp'): Promise<string[]> {
  const client = await connectClient(new URL(`${app.baseUrl}${path}`));
  try {
    return (await client.listTools()).tools
      .map((tool) => tool.name)
      .filter((name) => !TASK_TOOLS.has(name))
      .sort();
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
  it("runs each server's task rounds with its own handlers, whichever replica takes them", async () => {
    for (const [round, [call, poll]] of [
      [a, b],
      [b, a],
      [a, b],
      [b, a],
    ].entries()) {
      const shop = await openExtTasksSession({
        callUrl: new URL(`${call.baseUrl}/mcp`),
        tasksUrl: new URL(`${poll.baseUrl}/mcp`),
      });
      const admin = await openExtTasksSession({
        callUrl: new URL(`${call.baseUrl}/admin/mcp`),
        tasksUrl: new URL(`${poll.baseUrl}/admin/mcp`),
      });
      try {
        const [packed, rebuilt] = await Promise.all([
          shop.session.callTool('pack_order', { order: `o${round}` }, { task: { preference: 'require' } }),
          admin.session.callTool('rebuild_index', { index: `i${round}` }, { task: { preference: 'require' } }),
        ]);
        expect([packed.kind, rebuilt.kind]).toEqual(['task', 'task']);
        const [shopEnd, adminEnd] = await Promise.all([packed.settle(), rebuilt.settle()]);
        expect(shopEnd.outcome.status).toBe('completed');
        expect(resultFromTaskOutcome(shopEnd.outcome)).toMatchObject({
          content: [{ type: 'text', text: `order o${round}: packed` }],
        });
        // The admin task asked (first round) and finished with the answer (second round), both on admin's queue.
        expect(adminEnd.outcome.status).toBe('completed');
        expect(resultFromTaskOutcome(adminEnd.outcome)).toMatchObject({
          content: [{ type: 'text', text: `index i${round}: rebuilt` }],
        });
        expect(admin.asked).toEqual([`Rebuild the index i${round}?`]);
        expect(shop.asked).toEqual([]);
      } finally {
        await Promise.all([shop.close(), admin.close()]);
      }
    }
  });

  it("keeps each server's tasks to itself: the other server's tasks/get answers an unknown task", async () => {
    const created = await mcpPost(new URL(`${a.baseUrl}/mcp`), {
      method: 'tools/call',
      params: { name: 'pack_order', arguments: { order: 'mine' } },
      meta: TASKS_META,
    });
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    expect(taskId).toEqual(expect.any(String));
    for (const replica of [a, b]) {
      const own = await mcpPost(new URL(`${replica.baseUrl}/mcp`), {
        method: 'tasks/get',
        params: { taskId },
        meta: TASKS_META,
        headers: { 'mcp-name': taskId },
      });
      expect(own.json).toMatchObject({ result: { taskId } });
      const foreign = await mcpPost(new URL(`${replica.baseUrl}/admin/mcp`), {
        method: 'tasks/get',
        params: { taskId },
        meta: TASKS_META,
        headers: { 'mcp-name': taskId },
      });
      expect(foreign.json).toMatchObject({ error: { code: -32602 } });
    }
  });

  it("keeps each server's tasks and task queue under its own Redis keys, none under the module's", async () => {
    const keys = (await probe.keys('nest-mcp:*')).sort();
    for (const server of ['shop', 'admin']) {
      expect(keys.filter((key) => key.startsWith(`nest-mcp:server:${server}:task:`)).length).toBeGreaterThan(0);
      // BullMQ's keys of the server's own queue (`<keyPrefix>:server:<name>` is its prefix).
      expect(keys).toContain(`nest-mcp:server:${server}:tasks:meta`);
    }
    expect(keys.filter((key) => /^nest-mcp:(task|tasks|task-index):/.test(key))).toEqual([]);
  });
});
