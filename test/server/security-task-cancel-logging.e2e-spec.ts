import { setTimeout as sleep } from 'node:timers/promises';
import { McpRegistry, type McpToolContext } from 'nest-mcp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TaskProbe, TasksFixtureModule } from '../fixtures/tasks.fixture.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../support/app.factory.js';
import { legacyPost, rawInitialize } from '../support/legacy-client.factory.js';
import { mcpHeaders, mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { RecordingLogger } from '../support/recording.logger.js';
import { until, untilAsync } from '../support/wait.util.js';

/**
 * Issue #24, "Also" (a): a cancelled call is not an error. Every `tasks/cancel` of a running task used to log an ERROR
 * with a full stack from Nest's exceptions handler (the handler's `AbortError`), so any task owner could fill the log;
 * a client that walked away from a call did the same. Now the end of a cancelled call leaves one debug line, on both
 * wires and both adapters, and the server keeps serving. (On the BullMQ runner: test/redis/redis-task-security.e2e-spec.ts.)
 */

const TASKS_META = requestMeta({
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
});
const CANCELLED_LINE = /^Handler "longJob" ended after its call was cancelled: AbortError: /;

describe.each(ADAPTERS)('cancelled calls log no error (%s)', (adapter: AdapterName) => {
  let running: RunningApp;
  let probe: TaskProbe;
  const logger = new RecordingLogger();
  beforeAll(async () => {
    running = await startApp(adapter, { imports: [TasksFixtureModule] });
    running.app.useLogger(logger);
    probe = running.app.get(TaskProbe);
    // A handler registered at run time (no Nest pipeline around it) reacts to ctx.signal the same way.
    running.app
      .get(McpRegistry)
      .registerTool(
        { name: 'runtime_hold', description: 'Waits until cancelled' },
        async (_input, ctx: McpToolContext) => {
          probe.started.add('runtime');
          ctx.signal.addEventListener('abort', () => probe.aborted.add('runtime'), { once: true });
          await sleep(60_000, undefined, { signal: ctx.signal });
          return 'held';
        },
      );
  });
  afterAll(() => running?.close());
  beforeEach(() => {
    logger.errors.length = 0;
    logger.debugs.length = 0;
  });

  const post = (method: string, params: Record<string, unknown>): Promise<RawResponse> =>
    mcpPost(running.mcpUrl, {
      method,
      params,
      meta: TASKS_META,
      headers: { 'x-user': 'alice', ...(typeof params.taskId === 'string' && { 'mcp-name': params.taskId }) },
    });

  /** Waits until the call of `label` reported its end (the debug line), and checks nothing was logged as an error. */
  async function quietlyEnded(label: string, line = CANCELLED_LINE): Promise<void> {
    await until(() => probe.aborted.has(label), 5_000, `the round of ${label} to see ctx.signal`);
    await until(
      () => logger.debugs.some((debug) => line.test(debug)) || logger.errors.length > 0,
      5_000,
      'the end of the cancelled call',
    );
    expect(logger.errors).toEqual([]);
    expect(logger.debugs.filter((debug) => line.test(debug))).toHaveLength(1);
  }

  /** Starts `tools/call` of `name` with a raw fetch, and walks away once `label` started. */
  async function walkAway(name: string, args: Record<string, unknown>, label: string): Promise<void> {
    const controller = new AbortController();
    const params = { name, arguments: args, _meta: requestMeta() };
    const pending = fetch(running.mcpUrl, {
      method: 'POST',
      headers: { ...mcpHeaders('tools/call', params), 'x-user': 'alice' },
      body: JSON.stringify({ jsonrpc: '2.0', id: `walk-${label}`, method: 'tools/call', params }),
      signal: controller.signal,
    }).catch(() => undefined);
    await until(() => probe.started.has(label), 5_000, 'the call to start');
    controller.abort();
    await pending;
  }

  it('2026-07-28: tasks/cancel of a running task', async () => {
    const created = await post('tools/call', { name: 'long_job', arguments: { label: 'modern-cancel', ms: 60_000 } });
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    await until(() => probe.started.has('modern-cancel'), 5_000, 'the round to start');
    const cancelled = await post('tasks/cancel', { taskId });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ result: {} });
    await quietlyEnded('modern-cancel');
    expect((await post('tasks/get', { taskId })).json).toMatchObject({ result: { status: 'cancelled' } });
    const next = await post('tools/call', { name: 'echo', arguments: { text: 'still here' } });
    expect(next.json).toMatchObject({ result: { content: [{ text: 'echo: still here' }] } });
  });

  it('2025-11-25: tasks/cancel of a running task', async () => {
    const { sessionId } = await rawInitialize(running.mcpUrl, { headers: { 'x-user': 'alice' } });
    const send = (method: string, params: Record<string, unknown>) =>
      legacyPost(
        running.mcpUrl,
        { id: `${method}-${Math.random()}`, method, params },
        { sessionId, headers: { 'x-user': 'alice' } },
      );
    const created = await send('tools/call', {
      name: 'long_job',
      arguments: { label: 'legacy-cancel', ms: 60_000 },
      task: {},
    });
    const taskId = (created.messages[0].result as { task: { taskId: string } }).task.taskId;
    await until(() => probe.started.has('legacy-cancel'), 5_000, 'the round to start');
    const cancelled = await send('tasks/cancel', { taskId });
    expect(cancelled.status).toBe(200);
    expect(cancelled.messages[0]).toMatchObject({ result: { taskId, status: 'cancelled' } });
    await quietlyEnded('legacy-cancel');
    expect((await send('tools/call', { name: 'echo', arguments: { text: 'next' } })).messages[0]).toMatchObject({
      result: { content: [{ text: 'echo: next' }] },
    });
  });

  it('a client that walks away from a running call', async () => {
    await walkAway('long_job', { label: 'walked-away', ms: 60_000 }, 'walked-away');
    await quietlyEnded('walked-away');
    await untilAsync(
      async () => (await post('tools/call', { name: 'echo', arguments: { text: 'ok' } })).status === 200,
      5_000,
      'the next call',
    );
  });

  it('a client that walks away from a runtime-registered tool', async () => {
    await walkAway('runtime_hold', {}, 'runtime');
    await quietlyEnded('runtime', /^runtime tool "runtime_hold" ended after its call was cancelled: AbortError: /);
    await untilAsync(
      async () => (await post('tools/call', { name: 'echo', arguments: { text: 'ok' } })).status === 200,
      5_000,
      'the next call',
    );
  });
});
