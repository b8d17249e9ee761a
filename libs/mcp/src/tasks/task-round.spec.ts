import { describe, expect, it } from 'vitest';
import type { McpTaskRecord } from '../protocol/task-record.interface.js';
import { InMemoryTaskStore } from './in-memory-task.store.js';
import { isAnswerShaped } from './task-answer.util.js';
import { TaskRound } from './task-round.js';

const form = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
};

async function storeWith(overrides: Partial<McpTaskRecord> = {}) {
  const store = new InMemoryTaskStore({ maxTasksPerOwner: 10, maxTasks: 10, sweepIntervalMs: 60_000 });
  const now = Date.now();
  const record: McpTaskRecord = {
    taskId: 't1',
    owner: null,
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
  await store.create(record);
  return { store, record };
}

const response = (result: Record<string, unknown>) => ({
  type: 'response' as const,
  httpStatus: 200,
  message: { jsonrpc: '2.0' as const, id: 1, result },
});

describe('TaskRound', () => {
  it('issues a handler key as a task key once, and a fresh key when it is asked again', async () => {
    const { store, record } = await storeWith({ issuedKeys: ['confirm'] });
    const round = new TaskRound(store, record, 1000);
    round.next(
      response({ resultType: 'input_required', inputRequests: { confirm: form, other: form }, requestState: 'x' }),
    );
    await round.settled;
    const task = (await store.load('t1'))!;
    expect(task.status).toBe('input_required');
    expect(Object.keys(task.inputRequests!)).toEqual(['confirm~2', 'other']);
    expect(task.inputRequests!['confirm~2'].handlerKey).toBe('confirm');
    expect(task.issuedKeys).toEqual(['confirm', 'confirm~2', 'other']);
    store.onModuleDestroy();
  });

  it("keeps the handler's state with the input requests, replaces or clears it each asking round, drops it at the end", async () => {
    const { store, record } = await storeWith();
    const first = new TaskRound(store, record, 1000);
    first.keepHandlerState({ holdId: 'h-1' });
    first.next(response({ resultType: 'input_required', inputRequests: { confirm: form }, requestState: 'x' }));
    await first.settled;
    expect(await store.load('t1')).toMatchObject({ status: 'input_required', handlerState: { holdId: 'h-1' } });

    await store.update('t1', (task) => ({ ...task, status: 'working', inputRequests: undefined }));
    const cleared = new TaskRound(store, (await store.load('t1'))!, 1000);
    cleared.keepHandlerState(undefined);
    cleared.next(response({ resultType: 'input_required', inputRequests: { note: form }, requestState: 'x' }));
    await cleared.settled;
    expect((await store.load('t1'))?.handlerState).toBeUndefined();

    await store.update('t1', (task) => ({
      ...task,
      status: 'working',
      inputRequests: undefined,
      handlerState: ['kept'],
    }));
    const last = new TaskRound(store, (await store.load('t1'))!, 1000);
    last.next(response({ resultType: 'complete', content: [] }));
    await last.settled;
    expect(await store.load('t1')).toMatchObject({ status: 'completed' });
    expect((await store.load('t1'))?.handlerState).toBeUndefined();
    store.onModuleDestroy();
  });

  it('completes with the result, fails with a JSON-RPC error, and refuses a result over the size bound', async () => {
    const { store, record } = await storeWith();
    const round = new TaskRound(store, record, 10);
    round.next(response({ resultType: 'complete', content: [{ type: 'text', text: 'a long result' }] }));
    await round.settled;
    expect(await store.load('t1')).toMatchObject({ status: 'failed', error: { code: -32603 } });
    store.onModuleDestroy();
  });

  it('turns progress and log notifications into the status message', async () => {
    const { store, record } = await storeWith();
    const round = new TaskRound(store, record, 1000);
    round.next({
      type: 'notification',
      message: {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p', progress: 1, total: 4 },
      },
    });
    await round.settled;
    expect((await store.load('t1'))?.statusMessage).toBe('1/4');
    round.next({
      type: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'halfway' } },
    });
    await round.settled;
    expect((await store.load('t1'))?.statusMessage).toBe('halfway');
    store.onModuleDestroy();
  });
});

describe('isAnswerShaped', () => {
  it('accepts results shaped like their request and nothing else', () => {
    expect(isAnswerShaped('elicitation/create', { action: 'accept', content: { a: 1 } })).toBe(true);
    expect(isAnswerShaped('elicitation/create', { action: 'decline' })).toBe(true);
    expect(isAnswerShaped('elicitation/create', { content: {} })).toBe(false);
    expect(isAnswerShaped('elicitation/create', 'yes')).toBe(false);
    expect(
      isAnswerShaped('sampling/createMessage', { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }),
    ).toBe(true);
    expect(isAnswerShaped('roots/list', { roots: [] })).toBe(true);
    expect(isAnswerShaped('roots/list', {})).toBe(false);
  });
});
