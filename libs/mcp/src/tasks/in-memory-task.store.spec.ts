import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpTaskRecord } from '../protocol/task-record.interface.js';
import { InMemoryTaskStore } from './in-memory-task.store.js';
import { newTaskId } from './task-id.util.js';

function record(owner: string | null, overrides: Partial<McpTaskRecord> = {}): McpTaskRecord {
  const now = Date.now();
  return {
    taskId: newTaskId(),
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

describe('InMemoryTaskStore', () => {
  const stores: InMemoryTaskStore[] = [];
  const newStore = (maxTasksPerOwner = 10, maxTasks = 100) => {
    const store = new InMemoryTaskStore({ maxTasksPerOwner, maxTasks });
    stores.push(store);
    return store;
  };
  afterEach(() => {
    for (const store of stores.splice(0)) store.onModuleDestroy();
    vi.useRealTimers();
  });

  it('reads a created task at once, by id and owner only', async () => {
    const store = newStore();
    const task = record('alice');
    await store.create(task);
    expect((await store.get(task.taskId, 'alice'))?.taskId).toBe(task.taskId);
    expect(await store.get(task.taskId, 'bob')).toBeUndefined();
    expect(await store.get(task.taskId, null)).toBeUndefined();
    expect(await store.get('unknown', 'alice')).toBeUndefined();
    expect((await store.load(task.taskId))?.owner).toBe('alice');
  });

  it('never changes a terminal task', async () => {
    const store = newStore();
    const task = record('alice');
    await store.create(task);
    await store.update(task.taskId, (current) => ({ ...current, status: 'completed', result: { content: [] } }));
    const mutate = vi.fn((current: McpTaskRecord) => ({ ...current, status: 'cancelled' as const }));
    const after = await store.update(task.taskId, mutate);
    expect(mutate).not.toHaveBeenCalled();
    expect(after?.status).toBe('completed');
    expect(after?.version).toBe(2);
  });

  it('hands out copies: changing a read record changes nothing stored', async () => {
    const store = newStore();
    const task = record('alice');
    await store.create(task);
    const read = (await store.get(task.taskId, 'alice'))!;
    read.status = 'failed';
    expect((await store.get(task.taskId, 'alice'))?.status).toBe('working');
  });

  it('bounds tasks per owner and in total, with 429 and a retry hint', async () => {
    const store = newStore(2, 3);
    await store.create(record('alice'));
    await store.create(record('alice'));
    await expect(store.create(record('alice'))).rejects.toMatchObject({
      httpStatus: 429,
      data: { retryAfterSeconds: 30 },
    });
    await store.create(record('bob'));
    await expect(store.create(record('carol'))).rejects.toMatchObject({ httpStatus: 429 });
  });

  it('forgets a task at the end of its TTL and makes room for new ones', async () => {
    vi.useFakeTimers();
    const store = newStore(1);
    const task = record(null, { ttlMs: 1000 });
    await store.create(task);
    vi.advanceTimersByTime(1000);
    expect(await store.get(task.taskId, null)).toBeUndefined();
    await store.create(record(null));
  });

  it("lists an owner's tasks newest first, a page at a time", async () => {
    const store = newStore();
    const tasks = [record('alice'), record('alice'), record('alice')];
    for (const task of tasks) await store.create(task);
    await store.create(record('bob'));
    const first = await store.list('alice', { limit: 2 });
    expect(first.tasks.map((task) => task.taskId)).toEqual([tasks[2].taskId, tasks[1].taskId]);
    const second = await store.list('alice', { cursor: first.nextCursor, limit: 2 });
    expect(second).toEqual({ tasks: [expect.objectContaining({ taskId: tasks[0].taskId })] });
    await expect(store.list('alice', { cursor: 'nope', limit: 2 })).rejects.toMatchObject({ code: -32602 });
  });

  it('tells watchers every committed change', async () => {
    const store = newStore();
    const seen: string[] = [];
    const stop = store.watch((task) => seen.push(task.status));
    const task = record('alice');
    await store.create(task);
    await store.update(task.taskId, (current) => ({ ...current, status: 'input_required' }));
    await store.update(task.taskId, () => undefined);
    stop();
    await store.update(task.taskId, (current) => ({ ...current, status: 'working' }));
    expect(seen).toEqual(['working', 'input_required']);
  });

  it('makes ids of at least 128 random bits, URL-safe', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newTaskId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });
});
