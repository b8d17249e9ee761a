import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { McpError } from 'nest-mcp';
import type { McpTaskRecord } from 'nest-mcp/backend';
import { McpRedisModule, type McpRedisModuleOptions, RedisTaskStore } from 'nest-mcp-redis';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { sleep, until } from '../support/wait.util.js';

function record(owner: string | null, overrides: Partial<McpTaskRecord> = {}): McpTaskRecord {
  const now = Date.now();
  return {
    taskId: randomBytes(18).toString('base64url'),
    owner,
    wire: 'modern',
    method: 'tools/call',
    params: { name: 'job' },
    clientCapabilities: {},
    protocolVersion: '2026-07-28',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 1000,
    answers: {},
    issuedKeys: [],
    version: 1,
    ...overrides,
  };
}

/** A store of its own Nest module (as an app gets it), on the test's Redis. */
async function openStore(options: McpRedisModuleOptions): Promise<{ store: RedisTaskStore; moduleRef: TestingModule }> {
  const moduleRef = await Test.createTestingModule({ imports: [McpRedisModule.forRoot(options)] }).compile();
  await moduleRef.init();
  return { store: moduleRef.get(RedisTaskStore), moduleRef };
}

describe('RedisTaskStore against a real redis-server', () => {
  let redis: RedisServer;
  let raw: Redis;
  const modules: TestingModule[] = [];
  let prefixes = 0;
  /** A store on a key prefix of its own (a fresh, empty namespace), or on `prefix` to share one. */
  const newStore = async (tasks: McpRedisModuleOptions['tasks'] = {}, prefix = `store-test-${++prefixes}`) => {
    const opened = await openStore({ url: redis.url, keyPrefix: prefix, commandTimeoutMs: 1_000, tasks });
    modules.push(opened.moduleRef);
    return { store: opened.store, prefix };
  };

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

  it('reads a created task at once, by id and owner only (foreign, unknown: undefined alike)', async () => {
    const { store } = await newStore();
    const task = record('alice');
    await store.create(task);
    expect(await store.get(task.taskId, 'alice')).toEqual(task);
    expect(await store.get(task.taskId, 'bob')).toBeUndefined();
    expect(await store.get(task.taskId, null)).toBeUndefined();
    expect(await store.get('unknown-task-id', 'alice')).toBeUndefined();
    expect((await store.load(task.taskId))?.owner).toBe('alice');
    const anonymous = record(null);
    await store.create(anonymous);
    expect((await store.get(anonymous.taskId, null))?.taskId).toBe(anonymous.taskId);
    expect(await store.get(anonymous.taskId, 'alice')).toBeUndefined();
  });

  it('keeps the record as JSON that Redis expires at createdAt + ttlMs, and forever with ttlMs null', async () => {
    const { store, prefix } = await newStore();
    const timed = record('alice', { ttlMs: 120_000 });
    const forever = record('alice', { ttlMs: null });
    await store.create(timed);
    await store.create(forever);
    expect(JSON.parse((await raw.get(`${prefix}:task:${timed.taskId}`))!)).toEqual(timed);
    expect(await raw.call('PEXPIRETIME', `${prefix}:task:${timed.taskId}`)).toBe(timed.createdAt + 120_000);
    expect(await raw.pttl(`${prefix}:task:${forever.taskId}`)).toBe(-1);
    // An update keeps the expiry.
    await store.update(timed.taskId, (current) => ({ ...current, statusMessage: 'halfway' }));
    expect(await raw.call('PEXPIRETIME', `${prefix}:task:${timed.taskId}`)).toBe(timed.createdAt + 120_000);
  });

  it('forgets a task at the end of its TTL and makes room for new ones of its owner', async () => {
    const { store } = await newStore({ maxTasksPerOwner: 1 });
    const task = record('alice', { ttlMs: 300 });
    await store.create(task);
    await expect(store.create(record('alice'))).rejects.toMatchObject({ httpStatus: 429 });
    await until(() => Date.now() >= task.createdAt + 300, 2_000, 'the TTL to pass');
    expect(await store.get(task.taskId, 'alice')).toBeUndefined();
    expect(await store.load(task.taskId)).toBeUndefined();
    expect(await store.update(task.taskId, (current) => current)).toBeUndefined();
    await store.create(record('alice'));
  });

  it('bounds tasks per owner and in total with 429 and a retry hint, and refuses an id collision', async () => {
    const { store } = await newStore({ maxTasksPerOwner: 2, maxTasks: 3 });
    await store.create(record('alice'));
    const second = record('alice');
    await store.create(second);
    const perOwner = await store.create(record('alice')).catch((error: unknown) => error);
    expect(perOwner).toBeInstanceOf(McpError);
    expect(perOwner).toMatchObject({ code: -32603, httpStatus: 429, data: { retryAfterSeconds: 30 } });
    expect((perOwner as Error).message).toContain('tasks.maxTasksPerOwner: 2');
    await store.create(record('bob'));
    await expect(store.create(record('carol'))).rejects.toMatchObject({
      httpStatus: 429,
      message: expect.stringContaining('tasks.maxTasks: 3'),
    });
    const { store: roomy } = await newStore();
    const task = record('alice');
    await roomy.create(task);
    await expect(roomy.create({ ...task })).rejects.toMatchObject({ code: -32603, message: 'Task id collision' });
  });

  it('updates with version + 1 and lastUpdatedAt; a mutate returning undefined changes nothing', async () => {
    const { store } = await newStore();
    const task = record('alice', { lastUpdatedAt: 1 });
    await store.create(task);
    const after = await store.update(task.taskId, (current) => ({
      ...current,
      status: 'input_required',
      owner: 'mallory',
      taskId: 'other',
    }));
    expect(after).toMatchObject({ status: 'input_required', version: 2, owner: 'alice', taskId: task.taskId });
    expect(after!.lastUpdatedAt).toBeGreaterThan(1);
    expect(await store.update(task.taskId, () => undefined)).toEqual(after);
    expect(await store.load(task.taskId)).toEqual(after);
  });

  it('never changes a terminal task (its mutate is not even called)', async () => {
    const { store } = await newStore();
    const task = record('alice');
    await store.create(task);
    await store.update(task.taskId, (current) => ({ ...current, status: 'completed', result: { content: [] } }));
    const mutate = vi.fn((current: McpTaskRecord) => ({ ...current, status: 'cancelled' as const }));
    const after = await store.update(task.taskId, mutate);
    expect(mutate).not.toHaveBeenCalled();
    expect(after).toMatchObject({ status: 'completed', version: 2 });
  });

  it('applies every one of many concurrent updates from two store instances exactly once (compare-and-set)', async () => {
    const { store: a, prefix } = await newStore();
    const { store: b } = await newStore({}, prefix);
    const task = record('alice', { answers: { count: 0 } });
    await a.create(task);
    const increment = (current: McpTaskRecord) => ({
      ...current,
      answers: { count: (current.answers.count as number) + 1 },
    });
    await Promise.all(Array.from({ length: 15 }, (_, n) => (n % 2 === 0 ? a : b).update(task.taskId, increment)));
    const final = await b.load(task.taskId);
    expect(final?.answers.count).toBe(15);
    expect(final?.version).toBe(16);
  });

  it('lets only the first of two concurrent terminal writes win', async () => {
    const { store: a, prefix } = await newStore();
    const { store: b } = await newStore({}, prefix);
    const task = record('alice');
    await a.create(task);
    const [completed, cancelled] = await Promise.all([
      a.update(task.taskId, (current) => ({ ...current, status: 'completed', result: { content: [] } })),
      b.update(task.taskId, (current) => ({ ...current, status: 'cancelled' })),
    ]);
    const final = await a.load(task.taskId);
    expect(final?.version).toBe(2);
    expect([completed?.status, cancelled?.status]).toEqual([final?.status, final?.status]);
  });

  it("lists an owner's live tasks newest first, a page at a time; an unknown cursor is -32602", async () => {
    const { store } = await newStore();
    const tasks = [record('alice'), record('alice'), record('alice')];
    for (const task of tasks) await store.create(task);
    const short = record('alice', { ttlMs: 200 });
    await store.create(short);
    await store.create(record('bob'));
    await until(() => Date.now() >= short.createdAt + 200, 2_000, 'the short task to expire');
    const first = await store.list('alice', { limit: 2 });
    expect(first.tasks.map((task) => task.taskId)).toEqual([tasks[2].taskId, tasks[1].taskId]);
    const second = await store.list('alice', { cursor: first.nextCursor, limit: 2 });
    expect(second).toEqual({ tasks: [tasks[0]] });
    expect(await store.list('nobody', { limit: 10 })).toEqual({ tasks: [] });
    await expect(store.list('alice', { cursor: 'nope', limit: 2 })).rejects.toMatchObject({ code: -32602 });
  });

  it('tells watchers on every replica each committed change, and ignores what is not a task on its channel', async () => {
    const { store: a, prefix } = await newStore();
    const { store: b } = await newStore({}, prefix);
    const seen: string[] = [];
    const stop = b.watch((task) => seen.push(`${task.status}:${task.version}`));
    // The subscription is made on the first watch: wait until the channel has a subscriber.
    const deadline = Date.now() + 5_000;
    while (((await raw.call('PUBSUB', 'NUMSUB', `${prefix}:task-changes`)) as [string, number])[1] < 1) {
      if (Date.now() > deadline) throw new Error('the watcher never subscribed');
      await sleep(20);
    }
    await raw.publish(`${prefix}:task-changes`, 'not json');
    await raw.publish(`${prefix}:task-changes`, JSON.stringify({ taskId: 'x', status: 'completed' }));
    const task = record('alice');
    await a.create(task);
    await a.update(task.taskId, (current) => ({ ...current, status: 'input_required' }));
    await a.update(task.taskId, () => undefined);
    await b.update(task.taskId, (current) => ({ ...current, status: 'working' }));
    await until(() => seen.length >= 3, 5_000, 'three changes');
    expect(seen).toEqual(['working:1', 'input_required:2', 'working:3']);
    stop();
    await a.update(task.taskId, (current) => ({ ...current, status: 'completed' }));
    await sleep(100);
    expect(seen).toHaveLength(3);
  });
});

describe('RedisTaskStore when Redis is down', () => {
  let redis: RedisServer;
  let moduleRef: TestingModule | undefined;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await moduleRef?.close();
    await redis?.dispose();
  });

  it('rejects every method with a 503 McpError instead of hanging, and works again once Redis is back', async () => {
    const opened = await openStore({ url: redis.url, keyPrefix: 'down-test', commandTimeoutMs: 1_000 });
    moduleRef = opened.moduleRef;
    const store = opened.store;
    const task = record('alice');
    await store.create(task);
    await redis.stop({ hard: true });
    const attempts: [string, () => Promise<unknown>][] = [
      ['create', () => store.create(record('alice'))],
      ['get', () => store.get(task.taskId, 'alice')],
      ['load', () => store.load(task.taskId)],
      ['update', () => store.update(task.taskId, (current) => ({ ...current, statusMessage: 'x' }))],
      ['list', () => store.list('alice', { limit: 10 })],
    ];
    for (const [name, attempt] of attempts) {
      const error = await attempt().then(
        () => new Error(`${name} resolved while Redis was down`),
        (failure: unknown) => failure,
      );
      expect(error, name).toBeInstanceOf(McpError);
      expect(error, name).toMatchObject({
        code: -32603,
        httpStatus: 503,
        message: expect.stringMatching(/^Task store unavailable: /),
      });
    }
    await redis.start();
    // The command client reconnects by itself.
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await store.create(record('alice'));
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(100);
      }
    }
  });
});
