import {
  createApplicationInputHandler,
  createTaskSessionFromClient,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import { MCP_TASK_STORE, type McpTaskStore } from 'nest-mcp/backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskRecordsModule } from '../fixtures/task-records.fixture.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../support/app.factory.js';
import { forkFixtureServer, type ForkedServer } from '../support/forked-server.js';
import {
  connectLegacyClient,
  legacyPost,
  rawInitialize,
  type LegacyConnection,
} from '../support/legacy-client.factory.js';
import { assertAllLegacyValid, legacyRecordingFetch } from '../support/legacy-schema.validator.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { untilAsync } from '../support/wait.util.js';

/**
 * Issue #24, item 6: what a task keeps is bounded. While it runs its record holds at most `tasks.maxRecordBytes` of
 * JSON (arguments, answers, input requests): a `tools/call` or a `tasks/update` that would exceed it is refused with
 * `-32602` (HTTP 413 on 2026-07-28; 200 on 2025-11-25, as every error of that wire), a round that asks for more fails its task, and a 2025-11-25 answer too large
 * fails it too. Once a task ends it keeps its result and nothing of what running it needed. Measured on a real server
 * process: 3 MiB tasks are refused, and ended tasks hold none of their arguments or answers.
 */

const KiB = 1024;
const LIMIT = 64 * KiB;
const TASKS_META = requestMeta({
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: { form: {} },
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  },
});
const pad = (bytes: number) => 'x'.repeat(bytes);

/** A raw 2026-07-28 request that declares the tasks extension, as `user`. */
function post(url: URL, method: string, params: Record<string, unknown>, user = 'alice'): Promise<RawResponse> {
  return mcpPost(url, {
    method,
    params,
    meta: TASKS_META,
    headers: { 'x-user': user, ...(typeof params.taskId === 'string' && { 'mcp-name': params.taskId }) },
  });
}

async function taskOf(url: URL, taskId: string, user = 'alice'): Promise<Record<string, unknown>> {
  const body = (await post(url, 'tasks/get', { taskId }, user)).json as { result?: Record<string, unknown> };
  if (!body.result) throw new Error(`tasks/get of ${taskId} failed`);
  return body.result;
}

/** Checks the refusal of a record too large: HTTP 413 on 2026-07-28, 200 on 2025-11-25 (where every error but an authorization failure is 200). */
function expectTooLarge(response: { status: number; text: string }, status = 413): void {
  expect(response.status, response.text.slice(0, 300)).toBe(status);
  const error = (JSON.parse(response.text) as { error: { code: number; message: string; data: unknown } }).error;
  expect(error).toMatchObject({ code: -32602, data: { limit: LIMIT } });
  expect(error.message).toContain('tasks.maxRecordBytes');
}

describe.each(ADAPTERS)('tasks.maxRecordBytes (%s)', (adapter: AdapterName) => {
  let running: RunningApp;
  let store: McpTaskStore;
  beforeAll(async () => {
    running = await startApp(adapter, { imports: [taskRecordsModule({ tasks: { maxRecordBytes: LIMIT } })] });
    store = running.app.get<McpTaskStore>(MCP_TASK_STORE);
  });
  afterAll(() => running?.close());

  const completed = (taskId: string) =>
    untilAsync(
      async () => (await taskOf(running.mcpUrl, taskId)).status === 'completed',
      5_000,
      `task ${taskId} to complete`,
    );

  it('2026-07-28: a task whose arguments exceed the bound is refused with 413 -32602; the same call without a task runs; a task within it runs', async () => {
    const big = { pad: pad(LIMIT + KiB) };
    expectTooLarge(await post(running.mcpUrl, 'tools/call', { name: 'keep_job', arguments: big }));
    // Not a task (the request did not declare the extension): an ordinary call, bounded by maxBodyBytes only.
    const plain = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'keep_job', arguments: big },
      headers: { 'x-user': 'alice' },
    });
    expect(plain.json).toMatchObject({ result: { content: [{ text: 'kept 1 argument(s)' }] } });
    const small = await post(running.mcpUrl, 'tools/call', { name: 'keep_job', arguments: { pad: pad(LIMIT / 2) } });
    const taskId = (small.json as { result: { taskId: string } }).result.taskId;
    await completed(taskId);
    expect((await taskOf(running.mcpUrl, taskId)).result).toMatchObject({ content: [{ text: 'kept 1 argument(s)' }] });
  });

  it('2026-07-28: tasks/update with an answer over the bound is refused with 413 and takes nothing; a smaller one completes the task, which then keeps no arguments or answers', async () => {
    const created = await post(running.mcpUrl, 'tools/call', {
      name: 'keep_job',
      arguments: { ask: true, pad: pad(LIMIT / 4) },
    });
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    await untilAsync(
      async () => (await taskOf(running.mcpUrl, taskId)).status === 'input_required',
      5_000,
      'the task to ask',
    );
    const [key] = Object.keys((await taskOf(running.mcpUrl, taskId)).inputRequests as object);
    expectTooLarge(
      await post(running.mcpUrl, 'tasks/update', {
        taskId,
        inputResponses: { [key]: { action: 'accept', content: { note: pad(LIMIT) } } },
      }),
    );
    expect((await taskOf(running.mcpUrl, taskId)).status).toBe('input_required');
    expect(
      (
        await post(running.mcpUrl, 'tasks/update', {
          taskId,
          inputResponses: { [key]: { action: 'accept', content: { note: pad(LIMIT / 4) } } },
        })
      ).json,
    ).toMatchObject({ result: {} });
    await completed(taskId);
    expect((await taskOf(running.mcpUrl, taskId)).result).toMatchObject({
      content: [{ text: `noted ${LIMIT / 4} character(s)` }],
    });
    const kept = await store.load(taskId);
    expect(kept).toMatchObject({ status: 'completed', params: { name: 'keep_job' }, answers: {}, issuedKeys: [] });
    expect(kept?.params).not.toHaveProperty('arguments');
    expect(kept).not.toHaveProperty('handlerState');
    expect(JSON.stringify(kept).length).toBeLessThan(2 * KiB);
  });

  it('a round that asks for more than the task may hold fails its task with -32603', async () => {
    const created = await post(running.mcpUrl, 'tools/call', { name: 'ask_big_job', arguments: { size: LIMIT } });
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    await untilAsync(async () => (await taskOf(running.mcpUrl, taskId)).status === 'failed', 5_000, 'the task to fail');
    expect((await taskOf(running.mcpUrl, taskId)).error).toEqual({
      code: -32603,
      message: `The task's input requests are too large (tasks.maxRecordBytes: ${LIMIT})`,
    });
    const small = await post(running.mcpUrl, 'tools/call', { name: 'ask_big_job', arguments: { size: 100 } });
    const smallId = (small.json as { result: { taskId: string } }).result.taskId;
    await untilAsync(
      async () => (await taskOf(running.mcpUrl, smallId)).status === 'input_required',
      5_000,
      'the small one to ask',
    );
  });

  describe('2025-11-25', () => {
    /** The official client on the 2025-11-25 wire as `user`, with an ext-tasks (v1) session answering notes of `noteSize`. */
    async function legacySession(
      user: string,
      noteSize: number,
    ): Promise<{ connection: LegacyConnection; session: TaskEnabledSession; close(): Promise<void> }> {
      const asUser: typeof fetch = (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('x-user', user);
        return fetch(input, { ...init, headers });
      };
      const connection = await connectLegacyClient(running.mcpUrl, {
        capabilities: { elicitation: { form: {} } },
        recorder: legacyRecordingFetch(asUser),
      });
      const session = createTaskSessionFromClient(connection.client, {
        endpointId: `task-records-${user}`,
        onInputRequest: createApplicationInputHandler({
          elicitation: async () => ({ action: 'accept', content: { note: pad(noteSize) } }),
          sampling: async () => {
            throw new Error('no sampling here');
          },
          roots: async () => ({ roots: [] }),
        }),
      });
      return {
        connection,
        session,
        close: async () => {
          await assertAllLegacyValid(connection.recorder);
          await session.close();
          await connection.client.close();
        },
      };
    }

    it('a task whose arguments exceed the bound is refused with -32602 (HTTP 200, as every error of this wire), and the session serves the next call', async () => {
      const { sessionId } = await rawInitialize(running.mcpUrl, { headers: { 'x-user': 'alice' } });
      const send = (params: Record<string, unknown>) =>
        legacyPost(
          running.mcpUrl,
          { id: `call-${Math.random()}`, method: 'tools/call', params },
          { sessionId, headers: { 'x-user': 'alice' } },
        );
      expectTooLarge(await send({ name: 'keep_job', arguments: { pad: pad(LIMIT + KiB) }, task: {} }), 200);
      const next = await send({ name: 'keep_job', arguments: { pad: pad(KiB) }, task: {} });
      expect(next.status).toBe(200);
      expect(next.messages[0]).toMatchObject({ result: { task: { status: 'working' } } });
    });

    it('an answer to a live input request that exceeds the bound fails the task with the reason; a smaller one completes it', async () => {
      const big = await legacySession('bob', LIMIT);
      try {
        const execution = await big.session.callTool('keep_job', { ask: true }, { task: { preference: 'require' } });
        expect(execution.kind).toBe('task');
        const taskId = execution.handle!.taskId;
        const get = () =>
          legacyPost(
            running.mcpUrl,
            { id: 'get', method: 'tasks/get', params: { taskId } },
            { sessionId: big.connection.sessionId, headers: { 'x-user': 'bob' } },
          );
        await untilAsync(async () => (await get()).messages[0]?.result?.status === 'failed', 5_000, 'the task to fail');
        expect((await get()).messages[0].result).toMatchObject({
          status: 'failed',
          statusMessage: expect.stringContaining('tasks.maxRecordBytes'),
        });
      } finally {
        await big.close();
      }
      const small = await legacySession('bob', KiB);
      try {
        const execution = await small.session.callTool('keep_job', { ask: true }, { task: { preference: 'require' } });
        const { outcome } = await execution.settle();
        expect(outcome.status).toBe('completed');
      } finally {
        await small.close();
      }
    });
  });
});

describe.each(ADAPTERS)('memory of a real server process holding tasks (%s)', (adapter: AdapterName) => {
  let server: ForkedServer;
  const MiB = 1024 * KiB;
  beforeAll(async () => {
    // The defaults (tasks.maxRecordBytes 256 KiB), with a body limit that lets 3 MiB of arguments reach the task code.
    server = await forkFixtureServer('test/fixtures/task-records-main.fixture.ts', [
      adapter,
      JSON.stringify({ maxBodyBytes: 8 * MiB }),
    ]);
  }, 60_000);
  afterAll(() => server?.kill());

  const retained = async () => {
    const { heapUsed, external, arrayBuffers } = await server.ask<{
      heapUsed: number;
      external: number;
      arrayBuffers: number;
    }>('measure', 'memory');
    return heapUsed + external + arrayBuffers;
  };

  it('refuses 3 MiB tasks, and tasks that ended (200 KiB of arguments or answers each) keep none of it', async () => {
    const warm = await post(server.url, 'tools/call', { name: 'keep_job', arguments: {} }, 'mem');
    expect(warm.status).toBe(200);
    const before = await retained();

    const statuses = new Set<number>();
    for (let i = 0; i < 12; i++)
      statuses.add(
        (await post(server.url, 'tools/call', { name: 'keep_job', arguments: { pad: pad(3 * MiB) } }, 'mem')).status,
      );
    expect(statuses).toEqual(new Set([413]));

    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const created = await post(
        server.url,
        'tools/call',
        { name: 'keep_job', arguments: { pad: pad(200 * KiB), i } },
        'mem',
      );
      ids.push((created.json as { result: { taskId: string } }).result.taskId);
    }
    const asking: string[] = [];
    for (let i = 0; i < 20; i++) {
      const created = await post(server.url, 'tools/call', { name: 'keep_job', arguments: { ask: true, i } }, 'mem');
      asking.push((created.json as { result: { taskId: string } }).result.taskId);
    }
    for (const taskId of asking) {
      await untilAsync(
        async () => (await taskOf(server.url, taskId, 'mem')).status === 'input_required',
        10_000,
        'the task to ask',
      );
      const [key] = Object.keys((await taskOf(server.url, taskId, 'mem')).inputRequests as object);
      const answered = await post(
        server.url,
        'tasks/update',
        { taskId, inputResponses: { [key]: { action: 'accept', content: { note: pad(200 * KiB) } } } },
        'mem',
      );
      expect(answered.json).toMatchObject({ result: {} });
    }
    for (const taskId of [...ids, ...asking]) {
      await untilAsync(
        async () => (await taskOf(server.url, taskId, 'mem')).status === 'completed',
        10_000,
        `task ${taskId} to complete`,
      );
    }

    // 52 tasks kept for their TTL: ~12 MiB of arguments and answers before the fix, ~100 KiB of records after it.
    const growth = (await retained()) - before;
    expect(growth, `retained ${(growth / MiB).toFixed(1)} MiB more`).toBeLessThan(4 * MiB);
    // And the server serves the next request.
    expect((await post(server.url, 'tools/call', { name: 'keep_job', arguments: {} }, 'mem')).json).toMatchObject({
      result: { resultType: 'task' },
    });
  }, 180_000);
});
