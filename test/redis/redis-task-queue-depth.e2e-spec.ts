import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisTasksReplicaModule, ReplicaProbe } from '../fixtures/redis-tasks.fixture.js';
import { startApp, type RunningApp } from '../support/app.factory.js';
import { setEnv } from '../support/env.util.js';
import { OtelHarness } from '../support/otel.harness.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { closeReplica } from '../support/redis-replicas.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { until, untilAsync } from '../support/wait.util.js';

/**
 * `nest_mcp.task.queue.depth` (issue #27, metrics): the BullMQ task runner's job counts as an observable gauge, one
 * data point per state (`nest_mcp.state`: waiting, delayed, active), read with one `getJobCounts` per collection from
 * a real SDK's metric reader, on a real redis-server. The replica runs one round at a time, so a round that holds its
 * worker keeps the next ones waiting; once it is cancelled they run, and the queue is empty again. A collection while
 * Redis is down reports nothing new and never fails.
 */

const TASKS_META = requestMeta({
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
});

describe('telemetry: the Redis task queue depth gauge', () => {
  let redis: RedisServer;
  let otel: OtelHarness;
  let running: RunningApp;

  beforeAll(async () => {
    redis = await startRedisServer();
    otel = OtelHarness.install();
    running = await startApp('express', {
      imports: [
        RedisTasksReplicaModule.forRoot({
          url: redis.url,
          keyPrefix: 'otel-depth',
          commandTimeoutMs: 500,
          tasks: { concurrency: 1 },
        }),
      ],
    });
  });
  afterAll(async () => {
    if (running) await closeReplica(running);
    await otel?.uninstall();
    await redis?.dispose();
  });

  const request = (method: string, params: Record<string, unknown>) =>
    mcpPost(running.mcpUrl, {
      method,
      params,
      meta: TASKS_META,
      headers: { 'x-user': 'alice', ...(typeof params.taskId === 'string' && { 'mcp-name': params.taskId }) },
    });
  const startTask = async (label: string, ms: number): Promise<string> => {
    const created = await request('tools/call', { name: 'long_job', arguments: { label, ms } });
    const taskId = (created.json as { result?: { taskId?: string } }).result?.taskId;
    if (!taskId) throw new Error(`no task: ${created.text}`);
    return taskId;
  };
  const statusOf = async (taskId: string) =>
    ((await request('tasks/get', { taskId })).json as { result?: { status?: string } }).result?.status;
  /** The gauge's data points, by state. */
  const depth = async (): Promise<Record<string, unknown>> => {
    const points = await otel.points('nest_mcp.task.queue.depth');
    return Object.fromEntries(points.map((point) => [point.attributes['nest_mcp.state'], point.value]));
  };

  it('rounds held back by a busy worker show as waiting and active, then the queue drains to zero', async () => {
    const probe = running.app.get(ReplicaProbe);
    const hold = await startTask('hold', 60_000);
    await until(() => probe.started.has('hold'), 5_000, 'the holding round to start');
    const queued = [await startTask('queued-1', 10), await startTask('queued-2', 10)];

    // The only worker slot is taken: the two later rounds wait in Redis.
    expect(await depth()).toEqual({ waiting: 2, delayed: 0, active: 1 });
    const points = await otel.points('nest_mcp.task.queue.depth');
    // One bounded attribute: no task ids, no queue keys.
    for (const point of points) expect(Object.keys(point.attributes)).toEqual(['nest_mcp.state']);

    expect((await request('tasks/cancel', { taskId: hold })).status).toBe(200);
    await until(() => probe.aborted.has('hold'), 5_000, 'the holding round to be aborted');
    for (const taskId of queued)
      await untilAsync(async () => (await statusOf(taskId)) === 'completed', 10_000, `task ${taskId} to complete`);
    // The job of the last round is marked completed in Redis right after its task is.
    await untilAsync(
      async () => JSON.stringify(await depth()) === JSON.stringify({ waiting: 0, delayed: 0, active: 0 }),
      5_000,
      'the queue to drain',
    );
  });

  it('a collection while Redis is down reports nothing new and does not fail', async () => {
    await redis.stop({ hard: true });
    try {
      // `collect` throws when a callback failed: the gauge's read swallows the error.
      await expect(otel.collect()).resolves.toBeDefined();
    } finally {
      await redis.start();
    }
  });
});

/**
 * Two named servers with their own BullMQ task queues (`McpRedis.forServer`, issue #28): each queue is its own gauge
 * series, told apart by `nest_mcp.server`, from one collection.
 */
describe("telemetry: each named server's task queue depth", () => {
  let redis: RedisServer;
  let otel: OtelHarness;
  let running: RunningApp;
  let restoreEnv: (() => void) | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    otel = OtelHarness.install();
    restoreEnv = setEnv({ REDIS_URL: redis.url, MCP_STATE_KEYS: Buffer.alloc(32, 27).toString('base64') });
    const { AppModule } = await import('../../docs/examples/servers/servers-on-redis.module.js');
    running = await startApp('express', { imports: [AppModule] });
  });
  afterAll(async () => {
    if (running) await closeReplica(running);
    await otel?.uninstall();
    await redis?.dispose();
    restoreEnv?.();
  });

  it('reports one series per server and state, with nest_mcp.server', async () => {
    const points = await otel.points('nest_mcp.task.queue.depth');
    const series = points
      .map((point) => `${point.attributes['nest_mcp.server']}/${point.attributes['nest_mcp.state']}=${point.value}`)
      .sort();
    expect(series).toEqual([
      'admin/active=0',
      'admin/delayed=0',
      'admin/waiting=0',
      'shop/active=0',
      'shop/delayed=0',
      'shop/waiting=0',
    ]);
    for (const point of points)
      expect(Object.keys(point.attributes).sort()).toEqual(['nest_mcp.server', 'nest_mcp.state']);
  });
});
