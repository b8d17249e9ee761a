import { type ChildProcess, fork } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisTasksReplicaModule, ReplicaProbe } from '../fixtures/redis-tasks.fixture.js';
import { ADAPTERS, type RunningApp, startApp } from '../support/app.factory.js';
import { REPO_ROOT } from '../support/forked-server.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { eventually, replicasReconnected } from '../support/redis-replicas.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { sleep } from '../support/wait.util.js';

/**
 * Shutdown of a replica on Redis is bounded and leaves nothing behind, whatever state Redis is in: down (a replica
 * asked to stop must still exit), just restarted (BullMQ's connections may still be reconnecting), or up (every
 * connection closed). No assertion is on speed: each wait is a generous bound whose expiry means "hung".
 */

const TASKS_META = requestMeta({
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
});
/** Long enough to tell "slow" from "hung" on a loaded machine. */
const EXIT_BOUND_MS = 20_000;
const CLOSE_BOUND_MS = 15_000;

/** Starts a task of `tool` on `url` as `user`, and returns its id. */
async function startTask(url: URL, tool: string, args: Record<string, unknown>, user = 'alice'): Promise<string> {
  const response = await mcpPost(url, {
    method: 'tools/call',
    params: { name: tool, arguments: args },
    meta: TASKS_META,
    headers: { 'x-user': user },
  });
  const taskId = (response.json as { result?: { taskId?: string } }).result?.taskId;
  if (!taskId) throw new Error(`no task: ${response.status} ${response.text}`);
  return taskId;
}

/** Resolves with the task's status once it is no longer running (or waiting for input); throws after `timeoutMs`. */
async function settled(url: URL, taskId: string, timeoutMs = 10_000, user = 'alice'): Promise<string> {
  let status = '';
  await eventually(
    async () => {
      const response = await mcpPost(url, {
        method: 'tasks/get',
        params: { taskId },
        meta: TASKS_META,
        headers: { 'x-user': user, 'mcp-name': taskId },
      });
      status = String((response.json as { result?: { status?: string } }).result?.status);
      return status !== 'working' && status !== 'input_required';
    },
    timeoutMs,
    `task ${taskId} to end`,
  );
  return status;
}

/** Closes an in-process replica; fails with `what` if the close has not resolved after CLOSE_BOUND_MS. */
async function closeWithin(running: RunningApp, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), CLOSE_BOUND_MS)));
  const outcome = await Promise.race([running.close().then(() => 'closed' as const), hung]);
  clearTimeout(timer);
  expect(outcome, `${what}: app.close() did not resolve within ${CLOSE_BOUND_MS} ms`).toBe('closed');
}

/** Closes the replicas a failed test left open (bounded: one that hung is left as it is). */
async function closeLeftOpen(replicas: RunningApp[]): Promise<void> {
  await Promise.all(
    replicas.map((replica) => Promise.race([replica.close().catch(() => undefined), sleep(CLOSE_BOUND_MS)])),
  );
  replicas.length = 0;
}

/** A replica (test/fixtures/redis-shutdown-replica.fixture.ts) in a child process. */
interface ChildReplica {
  readonly child: ChildProcess;
  readonly url: URL;
  /** What it wrote so far (stdout and stderr). */
  output(): string;
  /** Resolves once the process exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startChildReplica(redisUrl: string, keyPrefix: string): Promise<ChildReplica> {
  const child = fork(`${REPO_ROOT}test/fixtures/redis-shutdown-replica.fixture.ts`, [redisUrl, keyPrefix], {
    cwd: REPO_ROOT,
    execArgv: ['--import', `${REPO_ROOT}test/support/ts-child.loader.mjs`],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const append = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000));
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { ready?: number }) =>
      message.ready ? resolve(message.ready) : reject(new Error(`unexpected message ${JSON.stringify(message)}`)),
    );
    void exited.then(({ code, signal }) =>
      reject(new Error(`the replica exited (${code ?? signal}) before it was ready: ${output}`)),
    );
  });
  return { child, url: new URL(`http://127.0.0.1:${port}/mcp`), output: () => output, exited };
}

/**
 * Sends SIGTERM and waits for the exit, at most EXIT_BOUND_MS. Fails, with what the replica wrote, unless its
 * `app.close()` resolved and the process then ended by itself (exit code 0).
 */
async function stopsCleanly(replica: ChildReplica): Promise<void> {
  replica.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), EXIT_BOUND_MS)));
  const outcome = await Promise.race([replica.exited, hung]);
  clearTimeout(timer);
  const closeResolved = replica.output().includes('closed');
  if (outcome === 'hung') {
    expect.fail(
      `the replica did not exit within ${EXIT_BOUND_MS} ms of SIGTERM; app.close() ${closeResolved ? 'resolved' : 'never resolved'}. Its output:\n${replica.output()}`,
    );
  }
  expect({ closeResolved, ...outcome }, replica.output()).toEqual({ closeResolved: true, code: 0, signal: null });
}

describe('a replica in its own process, with task tools, asked to stop (SIGTERM) while Redis is down', () => {
  let redis: RedisServer;
  let redisDown = false;
  let probe: Redis | undefined;
  let replicas: ChildReplica[] = [];

  const killRedis = async () => {
    redisDown = true;
    await redis.stop({ hard: true });
  };

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    for (const replica of replicas) replica.child.kill('SIGKILL');
    replicas = [];
    probe?.disconnect();
    probe = undefined;
    // Killed by the test: up again for the next one.
    if (redisDown) await redis.start();
    redisDown = false;
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('closes and exits by itself, idle', async () => {
    const replica = await startChildReplica(redis.url, 'shutdown-idle');
    replicas.push(replica);
    await killRedis();
    await stopsCleanly(replica);
  }, 40_000);

  it('closes and exits by itself with a round in flight (its job cannot go back to the queue without Redis)', async () => {
    const replica = await startChildReplica(redis.url, 'shutdown-busy');
    replicas.push(replica);
    probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    probe.on('error', () => undefined);
    await startTask(replica.url, 'hold', { label: 'busy', ms: 60_000 });
    await eventually(async () => (await probe!.llen('test:runs:busy')) > 0, 10_000, 'the round to start');
    await killRedis();
    await stopsCleanly(replica);
  }, 40_000);

  it('closes and exits by itself when Redis was down since it started', async () => {
    await killRedis();
    const replica = await startChildReplica(redis.url, 'shutdown-never-up');
    replicas.push(replica);
    await stopsCleanly(replica);
  }, 40_000);
});

describe('in-process replicas with task tools, closed after a Redis restart', () => {
  let redis: RedisServer;
  const replicas: RunningApp[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(() => closeLeftOpen(replicas));
  afterAll(async () => {
    await redis?.dispose();
  });

  // About one close in four used to hang: BullMQ's graceful close waited forever for the 'end' of a connection that was
  // still waiting to reconnect. Every other round closes at once after the restart (all connections still waiting to
  // reconnect, a fixed 1 s apart); the others once the replicas answer again (some connections may still reconnect).
  for (let round = 0; round < 8; round++) {
    const adapter = ADAPTERS[round % ADAPTERS.length];
    const waitForReconnect = round % 4 >= 2;
    it(`round ${round + 1} (${adapter}, Redis ${round % 2 ? 'killed' : 'stopped'}, closed ${waitForReconnect ? 'once reconnected' : 'at once'})`, async () => {
      for (let index = 0; index < 2; index++) {
        const module = RedisTasksReplicaModule.forRoot({
          url: redis.url,
          keyPrefix: `shutdown-restart-${round}`,
          commandTimeoutMs: 1_000,
          redis: { retryStrategy: () => 1_000 },
          tasks: { lockDurationMs: 3_000 },
        });
        replicas.push(await startApp(adapter, { imports: [module] }));
      }
      // A task runs to completion first: the worker, the producer and the subscriber are all in use.
      expect(
        await settled(
          replicas[1].mcpUrl,
          await startTask(replicas[0].mcpUrl, 'long_job', { label: `restart-${round}`, ms: 20 }),
        ),
      ).toBe('completed');
      await redis.stop({ hard: round % 2 === 1 });
      await redis.start();
      if (waitForReconnect) await replicasReconnected(replicas);
      for (let index = 1; replicas.length > 0; index++) {
        await closeWithin(replicas[0], `replica ${index} of round ${round + 1}`);
        replicas.shift();
      }
    }, 60_000);
  }
});

describe.each(ADAPTERS)('a normal shutdown while Redis is up (%s)', (adapter) => {
  let redis: RedisServer;
  let probe: Redis;
  const replicas: RunningApp[] = [];

  beforeAll(async () => {
    // A server of its own: every connection on it but the probe's belongs to the replicas.
    redis = await startRedisServer();
    probe = new Redis(redis.url, { connectionName: 'shutdown-test-probe', maxRetriesPerRequest: 1 });
  });
  afterEach(() => closeLeftOpen(replicas));
  afterAll(async () => {
    probe?.disconnect();
    await redis?.dispose();
  });

  /** `name=… age=…` of every connection on the server but the probe's. */
  async function replicaConnections(): Promise<string[]> {
    const list = (await probe.client('LIST')) as string;
    return list
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.includes(' name=shutdown-test-probe '))
      .map((line) => line.match(/ name=(\S*)/)?.[0].trim() ?? line);
  }

  it('hands the round in flight of a closing replica back to the queue, where the other replica takes it at once', async () => {
    for (let index = 0; index < 2; index++) {
      replicas.push(
        await startApp(adapter, {
          imports: [
            RedisTasksReplicaModule.forRoot({
              url: redis.url,
              keyPrefix: `shutdown-handover-${adapter}`,
              commandTimeoutMs: 1_000,
            }),
          ],
        }),
      );
    }
    const probes = replicas.map((replica) => replica.app.get(ReplicaProbe));
    const taskId = await startTask(replicas[0].mcpUrl, 'long_job', { label: 'handover', ms: 600_000 });
    await eventually(async () => probes.some((probe) => probe.started.has('handover')), 10_000, 'the round to start');
    const [leaving, staying] = probes[0].started.has('handover') ? [0, 1] : [1, 0];
    await closeWithin(replicas[leaving], 'the replica running the round');
    expect(probes[leaving].aborted.has('handover'), 'the closing replica aborted its round').toBe(true);
    // Well before the round's lock (30 s by default) could expire: the job went back to the queue.
    await eventually(
      async () => probes[staying].started.has('handover'),
      10_000,
      'the other replica to take the round',
    );
    const url = replicas[staying].mcpUrl;
    await mcpPost(url, {
      method: 'tasks/cancel',
      params: { taskId },
      meta: TASKS_META,
      headers: { 'x-user': 'alice', 'mcp-name': taskId },
    });
    expect(await settled(url, taskId)).toBe('cancelled');
    await closeWithin(replicas[staying], 'the other replica');
    replicas.length = 0;
  }, 40_000);

  it('closes every connection of each replica (CLIENT LIST shows none afterwards)', async () => {
    for (const name of ['replica-a', 'replica-b']) {
      const module = RedisTasksReplicaModule.forRoot({
        url: redis.url,
        keyPrefix: `shutdown-up-${adapter}`,
        commandTimeoutMs: 1_000,
        redis: { connectionName: name },
      });
      replicas.push(await startApp(adapter, { imports: [module] }));
    }
    // Every kind of connection in use: commands, subscriber, the queue's producer, the worker and its blocking one.
    expect(
      await settled(replicas[1].mcpUrl, await startTask(replicas[0].mcpUrl, 'long_job', { label: 'up', ms: 20 })),
    ).toBe('completed');
    const before = await replicaConnections();
    expect(before.filter((name) => name.includes('replica-a')).length, before.join(', ')).toBeGreaterThanOrEqual(3);
    expect(before.filter((name) => name.includes('replica-b')).length, before.join(', ')).toBeGreaterThanOrEqual(3);
    for (let index = 1; replicas.length > 0; index++) {
      await closeWithin(replicas[0], `replica ${index}`);
      replicas.shift();
    }
    let left: string[] = [];
    await eventually(
      async () => (left = await replicaConnections()).length === 0,
      5_000,
      'the replicas’ connections to close',
    ).catch(() =>
      expect.fail(`connections left open after the replicas closed: ${left.join(', ')} (before: ${before.join(', ')})`),
    );
    // Nothing reconnects afterwards either.
    await sleep(1_500);
    expect(await replicaConnections()).toEqual([]);
  }, 40_000);
});
