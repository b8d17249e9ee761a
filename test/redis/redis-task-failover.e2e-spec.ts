import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkFixtureServer, type ForkedServer } from '../support/forked-server.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { sleep } from '../support/wait.util.js';

const FIXTURE = 'test/fixtures/redis-task-replica.fixture.ts';
const PREFIX = 'failover-e2e';
const TASKS_META = requestMeta({
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
});

/**
 * Replicas in child processes (a worker killed with SIGKILL must really die), Redis with AOF on: a round whose
 * replica dies or shuts down runs again on another, and completes exactly once.
 */
describe('task rounds survive their replica and a Redis restart', () => {
  let redis: RedisServer;
  let probe: Redis;
  let replicas: ForkedServer[] = [];

  const fork = () => forkFixtureServer(FIXTURE, [redis.url, PREFIX]);
  const live = () => replicas.filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null);

  /** Starts a task of `slow_count` through `replica` and returns its id. */
  async function start(replica: ForkedServer, label: string, ms: number): Promise<string> {
    const response = await mcpPost(replica.url, {
      method: 'tools/call',
      params: { name: 'slow_count', arguments: { label, ms } },
      meta: TASKS_META,
    });
    const taskId = (response.json as { result?: { taskId?: string } }).result?.taskId;
    if (!taskId) throw new Error(`no task: ${response.status} ${response.text}`);
    return taskId;
  }

  /** Polls `tasks/get` through any live replica until the task is terminal (failing after `timeoutMs`). */
  async function settle(taskId: string, timeoutMs: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (let turn = 0; Date.now() < deadline; turn++) {
      const replicasUp = live();
      const replica = replicasUp[turn % replicasUp.length];
      const response = await mcpPost(replica.url, {
        method: 'tasks/get',
        params: { taskId },
        meta: TASKS_META,
        headers: { 'mcp-name': taskId },
      }).catch((error: unknown) => ({ json: { error: String(error) } }));
      const result = (response.json as { result?: Record<string, unknown> }).result;
      last = response.json;
      if (result && result.status !== 'working' && result.status !== 'input_required') return result;
      await sleep(100);
    }
    throw new Error(`task ${taskId} did not end within ${timeoutMs} ms; last answer: ${JSON.stringify(last)}`);
  }

  /** Waits until `count` rounds of `label` started; returns the pids that ran them. */
  async function runs(label: string, count: number, timeoutMs = 10_000): Promise<number[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pids = (await probe.lrange(`test:runs:${label}`, 0, -1)).map(Number);
      if (pids.length >= count) return pids;
      if (Date.now() > deadline) throw new Error(`${count} round(s) of ${label} did not start (saw ${pids.length})`);
      await sleep(50);
    }
  }

  const completions = async (label: string) => Number((await probe.get(`test:completed:${label}`)) ?? 0);

  beforeAll(async () => {
    redis = await startRedisServer({ aof: true });
    probe = new Redis(redis.url, { maxRetriesPerRequest: null });
    probe.on('error', () => undefined);
    replicas = await Promise.all([fork(), fork()]);
  }, 60_000);
  afterAll(async () => {
    for (const replica of replicas) replica.kill();
    probe?.disconnect();
    await redis?.dispose();
  });

  it('re-runs the round of a replica killed with SIGKILL on another replica; the task completes once', async () => {
    const taskId = await start(replicas[0], 'killed', 2_500);
    const [first] = await runs('killed', 1);
    const victim = replicas.find((replica) => replica.child.pid === first)!;
    expect(victim, 'the round runs on one of the replicas').toBeDefined();
    const exited = new Promise((resolve) => victim.child.once('exit', resolve));
    victim.kill();
    await exited;
    const task = await settle(taskId, 25_000);
    expect(task).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'done killed' }] } });
    const pids = await runs('killed', 2);
    expect(pids[0]).toBe(victim.child.pid);
    expect(pids[1]).not.toBe(victim.child.pid);
    expect(await completions('killed')).toBe(1);
    // A replica for the next tests in place of the dead one.
    replicas = [...live(), await fork()];
  }, 60_000);

  it('gives a round cut short by a graceful shutdown (SIGTERM) to another replica instead of failing its task', async () => {
    const taskId = await start(replicas[0], 'drained', 2_500);
    const [first] = await runs('drained', 1);
    const leaving = replicas.find((replica) => replica.child.pid === first)!;
    const exited = new Promise<number | null>((resolve) => leaving.child.once('exit', resolve));
    leaving.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const task = await settle(taskId, 20_000);
    expect(task).toMatchObject({ status: 'completed' });
    const pids = await runs('drained', 2);
    expect(pids[1]).not.toBe(leaving.child.pid);
    expect(await completions('drained')).toBe(1);
    replicas = [...live(), await fork()];
  }, 60_000);

  it('loses no task and completes none twice when Redis restarts (AOF on) mid-round', async () => {
    const labels = ['restart-a', 'restart-b', 'restart-c'];
    // Each replica runs one round at a time: two run, one waits in the queue.
    const taskIds = [];
    for (const [index, label] of labels.entries())
      taskIds.push(await start(replicas[index % replicas.length], label, 2_500));
    const deadline = Date.now() + 10_000;
    while (
      (await Promise.all(labels.map((label) => probe.llen(`test:runs:${label}`)))).filter((n) => n > 0).length < 2
    ) {
      if (Date.now() > deadline) throw new Error('two rounds did not start');
      await sleep(50);
    }
    await redis.stop();
    await redis.start();
    const tasks = await Promise.all(taskIds.map((taskId) => settle(taskId, 40_000)));
    for (const [index, task] of tasks.entries()) {
      expect(task, labels[index]).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: `done ${labels[index]}` }] },
      });
      expect(await completions(labels[index]), labels[index]).toBe(1);
    }
  }, 70_000);
});
