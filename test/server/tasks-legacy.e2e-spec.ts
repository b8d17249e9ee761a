import {
  createApplicationInputHandler,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LegacyNoMalloryGuard, legacyTasksModule, NameForm, TaskProbe } from '../fixtures/legacy-tasks.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import {
  connectLegacyClient,
  legacyPost,
  openLegacyPost,
  rawInitialize,
  type LegacyConnection,
} from '../support/legacy-client.factory.js';
import {
  assertAllLegacyValid,
  assertMatchesLegacyDef,
  assertValidLegacyServerMessage,
  legacyRecordingFetch,
} from '../support/legacy-schema.validator.js';
import { startInProcessStdio, type InProcessStdio } from '../support/stdio.harness.js';
import { until } from '../support/wait.util.js';
import type { WireMessage } from '../support/wire-response.util.js';

/**
 * 2025-11-25 core tasks (spec 2025-11-25: basic/utilities/tasks) on the same endpoint, store, runner and handlers as
 * the 2026-07-28 extension, driven by the official `@modelcontextprotocol/ext-tasks` client in its 2025-11-25
 * ("v1") generation on top of the official client in its default legacy mode: the `tasks` capability and
 * `execution.taskSupport`, immediate results, a task polled to completion (`tasks/get`, then `tasks/result`), a task
 * that asks for input (a real `elicitation/create` with `related-task` metadata), cancel while running, `tasks/list`
 * by principal, and a foreign principal's task answered like an unknown one. Every server message is checked
 * against the 2025-11-25 schema.
 */

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

interface Caller {
  connection: LegacyConnection;
  session: TaskEnabledSession;
  /** Answers to the task's `elicitation/create` requests, with what they asked. */
  asked: Array<{ message: string; related: unknown }>;
}

describe.each(ADAPTERS)('2025-11-25 core tasks (%s)', (adapter) => {
  let running: RunningApp;
  let probe: TaskProbe;
  const callers: Caller[] = [];

  /** A legacy client of principal `user` (its `x-user` header), wrapped in an ext-tasks session. */
  async function connect(user: string): Promise<Caller> {
    const withUser: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('x-user', user);
      return fetch(input, { ...init, headers });
    };
    const connection = await connectLegacyClient(running.mcpUrl, {
      capabilities: { elicitation: { form: {} } },
      recorder: legacyRecordingFetch(withUser),
    });
    const asked: Caller['asked'] = [];
    const session = createTaskSessionFromClient(connection.client, {
      endpointId: `legacy-tasks-e2e-${user}`,
      onInputRequest: createApplicationInputHandler({
        elicitation: async (request) => {
          const params =
            (request as unknown as { params?: Record<string, unknown> }).params ??
            (request as unknown as Record<string, unknown>);
          asked.push({
            message: String(params.message),
            related: (params._meta as Record<string, unknown> | undefined)?.[RELATED_TASK],
          });
          return { action: 'accept', content: { name: user } };
        },
        sampling: async () => {
          throw new Error('no sampling here');
        },
        roots: async () => ({ roots: [] }),
      }),
    });
    const caller = { connection, session, asked };
    callers.push(caller);
    return caller;
  }

  const raw = (
    caller: Caller,
    method: string,
    params: Record<string, unknown>,
    id: string | number = `raw-${Math.random()}`,
  ) =>
    legacyPost(
      running.mcpUrl,
      { id, method, params },
      { sessionId: caller.connection.sessionId, headers: { 'x-user': userOf(caller) } },
    );
  const userOf = (caller: Caller) => caller.session.endpointId.replace('legacy-tasks-e2e-', '');

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [legacyTasksModule()] });
    probe = running.app.get(TaskProbe);
  });
  afterEach(async () => {
    for (const caller of callers.splice(0)) {
      await assertAllLegacyValid(caller.connection.recorder);
      await caller.session.close();
      await caller.connection.client.close();
    }
    probe.reset();
  });
  afterAll(async () => {
    await running?.close();
  });

  it('advertises the tasks capability and execution.taskSupport; the 2026 extension key is not offered', async () => {
    const caller = await connect('alice');
    const capabilities = caller.connection.client.getServerCapabilities() as Record<string, unknown>;
    expect(capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    expect(capabilities.extensions).toBeUndefined();
    expect(caller.session.capabilities).toMatchObject({ execution: true, cancellation: true });

    const listed = await raw(caller, 'tools/list', {});
    const tools = (listed.messages[0].result as { tools: Array<{ name: string; execution?: unknown }> }).tools;
    const support = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution]));
    expect(support).toEqual({
      quick: { taskSupport: 'optional' },
      slow: { taskSupport: 'required' },
      waitForCancel: { taskSupport: 'optional' },
      askName: { taskSupport: 'required' },
      greetLater: { taskSupport: 'required' },
      greetCaught: { taskSupport: 'required' },
      broken: { taskSupport: 'required' },
      guarded: { taskSupport: 'required' },
      plain: undefined,
    });
  });

  it('runs the guards when the task is created, against the creating request, and not again in its rounds', async () => {
    LegacyNoMalloryGuard.runs = 0;
    const grace = await connect('grace');
    const execution = await grace.session.callTool('guarded', {});
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'guarded done' }] });
    expect(LegacyNoMalloryGuard.runs).toBe(1);

    const mallory = await connect('mallory');
    const refused = await raw(mallory, 'tools/call', { name: 'guarded', arguments: {}, task: {} });
    expect(refused.messages[0].result).toMatchObject({ isError: true });
    expect((await mallory.session.listTasks()).tasks).toEqual([]);
  });

  it('immediate results: an optional tool without a task, and a tool that is never a task', async () => {
    const caller = await connect('alice');
    const quick = await caller.session.callTool('quick', {});
    expect(quick.kind).toBe('immediate');
    const { outcome } = await quick.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'quick done' }] });

    const plain = await caller.session.callTool('plain', {}, { task: { preference: 'forbid' } });
    expect(plain.kind).toBe('immediate');
    expect(resultFromTaskOutcome((await plain.settle()).outcome)).toMatchObject({
      content: [{ type: 'text', text: 'plain done' }],
    });
    // No task was created for either.
    expect((await caller.session.listTasks()).tasks).toEqual([]);
  });

  it('a task polled to completion: CreateTaskResult, tasks/get until completed, then tasks/result with related-task', async () => {
    const caller = await connect('alice');
    const execution = await caller.session.callTool('slow', { ms: 150 });
    expect(execution.kind).toBe('task');
    const statuses: string[] = [];
    const { outcome } = await execution.settle({
      onEvent: (event) => void (event.type === 'task' && statuses.push(event.task.status)),
    });
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'slept 150 ms' }] });
    expect(statuses.at(-1)).toBe('completed');

    await caller.connection.recorder.settled();
    const methods = caller.connection.recorder.exchanges
      .filter((exchange) => exchange.verb === 'POST')
      .map((exchange) => exchange.requestMethod);
    expect(methods).toContain('tasks/get');
    expect(methods.at(-1)).toBe('tasks/result');
    const created = caller.connection.recorder.recorded.find((record) => record.requestMethod === 'tools/call')!
      .message as WireMessage;
    const task = (created.result as { task: Record<string, unknown> }).task;
    expect(task).toMatchObject({ status: 'working', ttl: expect.any(Number), pollInterval: 20 });
    const result = caller.connection.recorder.recorded.find((record) => record.requestMethod === 'tasks/result')!
      .message as WireMessage;
    expect((result.result as { _meta: Record<string, unknown> })._meta[RELATED_TASK]).toEqual({ taskId: task.taskId });
    // The status changes went to the session's GET stream.
    await caller.connection.recorder.waitFor(
      (record) =>
        record.verb === 'GET' &&
        (record.message as WireMessage).method === 'notifications/tasks/status' &&
        (record.message as { params: { status: string } }).params.status === 'completed',
      'notifications/tasks/status completed on the GET stream',
    );
  });

  it('a task that asks for input: elicitation/create with related-task, answered, and the task completes', async () => {
    const caller = await connect('alice');
    const execution = await caller.session.callTool('askName', {});
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'hello alice' }] });
    expect(caller.asked).toEqual([
      {
        message: 'Who is asking?',
        related: { taskId: execution.kind === 'task' ? execution.handle.taskId : undefined },
      },
    ]);
    const request = caller.connection.recorder.recorded.find(
      (record) => (record.message as WireMessage).method === 'elicitation/create',
    )!;
    expect((request.message as { params: { requestedSchema: unknown } }).params.requestedSchema).toEqual(
      NameForm.requestedSchema,
    );
    // No tasks/result was waiting (this client calls it once the task ended): the request went on the GET stream.
    expect(request.verb).toBe('GET');
    // input_required was told to the client before the answer.
    expect(
      caller.connection.recorder.recorded.some(
        (record) => (record.message as { params?: { status?: string } }).params?.status === 'input_required',
      ),
    ).toBe(true);
  });

  it('beforeTask asks on the tools/call stream before the task exists; its answer reaches the task without asking again', async () => {
    const caller = await connect('alice');
    const execution = await caller.session.callTool('greetLater', {});
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'greetings alice' }] });
    // One question, on the tools/call stream, without related-task (no task existed yet).
    expect(caller.asked).toEqual([{ message: 'What is your name?', related: undefined }]);
    const asks = caller.connection.recorder.recorded.filter(
      (record) => (record.message as WireMessage).method === 'elicitation/create',
    );
    expect(asks.map((record) => record.requestMethod)).toEqual(['tools/call']);
  });

  it('a beforeTask that catches the signal of ctx.elicit still asks on the tools/call stream, as on 2026', async () => {
    const caller = await connect('alice');
    const execution = await caller.session.callTool('greetCaught', {});
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'greetings alice' }] });
    // Asked before the task existed (no related-task), so the task found the answer and did not ask again.
    expect(caller.asked).toEqual([{ message: 'What is your name?', related: undefined }]);
  });

  it('cancel while running: the task is cancelled before the answer, ctx.signal fires, a second cancel is -32602', async () => {
    const caller = await connect('alice');
    const execution = await caller.session.callTool('waitForCancel', {}, { task: { preference: 'require' } });
    expect(execution.kind).toBe('task');
    const taskId = execution.kind === 'task' ? execution.handle.taskId : '';
    await until(() => probe.started.includes('waitForCancel'), 3_000, 'the task to start');
    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
    await until(() => probe.aborted !== undefined, 3_000, 'ctx.signal to fire');

    const again = await raw(caller, 'tasks/cancel', { taskId });
    expect(again.messages[0].error).toMatchObject({ code: -32602 });
    const got = await raw(caller, 'tasks/get', { taskId });
    expect(got.messages[0].result).toMatchObject({ taskId, status: 'cancelled' });
  });

  it('recovers a task by id after the client reconnects: a new session of the same principal reads and finishes it', async () => {
    const first = await connect('heidi');
    const execution = await first.session.callTool('slow', { ms: 300 });
    expect(execution.kind).toBe('task');
    const taskId = execution.kind === 'task' ? execution.handle.taskId : '';
    // The client goes away while the task works: its session ends with it.
    callers.splice(callers.indexOf(first), 1);
    await first.session.close();
    await first.connection.client.close();

    const again = await connect('heidi');
    const got = await raw(again, 'tasks/get', { taskId });
    expect(got.messages[0].result).toMatchObject({ taskId, status: expect.stringMatching(/^(working|completed)$/) });
    const result = await raw(again, 'tasks/result', { taskId });
    const final = result.messages.at(-1)!;
    expect(final.result).toMatchObject({ content: [{ type: 'text', text: 'slept 300 ms' }] });
    expect((final.result as { _meta: Record<string, unknown> })._meta[RELATED_TASK]).toEqual({ taskId });
    // Another principal still cannot see it.
    const stranger = await connect('ivan');
    expect((await raw(stranger, 'tasks/get', { taskId })).messages[0].error).toMatchObject({ code: -32602 });
  });

  it('tasks/list shows only the caller’s tasks; a foreign principal gets not-found on every task method', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob');
    const mine = await alice.session.callTool('slow', { ms: 0 });
    const theirs = await bob.session.callTool('slow', { ms: 0 });
    const aliceTask = mine.kind === 'task' ? mine.handle.taskId : '';
    const bobTask = theirs.kind === 'task' ? theirs.handle.taskId : '';
    await mine.settle();
    await theirs.settle();

    const aliceList = (await alice.session.listTasks()).tasks.map((task) => task.taskId);
    expect(aliceList).toContain(aliceTask);
    expect(aliceList).not.toContain(bobTask);
    const listed = await raw(bob, 'tasks/list', {});
    expect(
      (listed.messages[0].result as { tasks: Array<{ taskId: string }> }).tasks.map((task) => task.taskId),
    ).toEqual([bobTask]);

    const unknown = await raw(bob, 'tasks/get', { taskId: 'no-such-task' });
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const foreign = await raw(bob, method, { taskId: aliceTask });
      expect(foreign.status).toBe(200);
      expect(foreign.messages[0].error).toEqual(unknown.messages[0].error);
    }
    expect(unknown.messages[0].error).toMatchObject({ code: -32602 });
    if (mine.kind === 'task') await expect(bob.session.task(mine.handle.taskId).snapshot()).rejects.toThrow();
    // Alice still sees hers, completed.
    expect((await raw(alice, 'tasks/get', { taskId: aliceTask })).messages[0].result).toMatchObject({
      status: 'completed',
    });
  });

  it('input_required, then tasks/result: the elicitation/create travels on the tasks/result stream, which ends with the result', async () => {
    const headers = { 'x-user': 'carol' };
    const { sessionId } = await rawInitialize(running.mcpUrl, { capabilities: { elicitation: {} }, headers });
    const post = (body: Record<string, unknown>) => legacyPost(running.mcpUrl, body, { sessionId, headers });
    const created = await post({
      id: 'create',
      method: 'tools/call',
      params: { name: 'askName', arguments: {}, task: {} },
    });
    const taskId = (created.messages[0].result as { task: { taskId: string } }).task.taskId;
    let status = '';
    for (let i = 0; i < 100 && status !== 'input_required'; i++) {
      status = (
        (await post({ id: `get-${i}`, method: 'tasks/get', params: { taskId } })).messages[0].result as {
          status: string;
        }
      ).status;
      if (status !== 'input_required') await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe('input_required');

    const stream = await openLegacyPost(
      running.mcpUrl,
      { id: 'result', method: 'tasks/result', params: { taskId } },
      { sessionId, headers },
    );
    const ask = await stream.waitFor(
      (message) => message.method === 'elicitation/create',
      'the elicitation on the tasks/result stream',
    );
    expect((ask.params as { _meta: Record<string, unknown> })._meta[RELATED_TASK]).toEqual({ taskId });
    const answered = await post({ id: ask.id, result: { action: 'accept', content: { name: 'carol' } } });
    expect(answered.status).toBe(202);
    const final = await stream.waitFor((message) => message.id === 'result', 'the tasks/result answer');
    expect(final.result).toMatchObject({
      content: [{ type: 'text', text: 'hello carol' }],
      _meta: { [RELATED_TASK]: { taskId } },
    });
    expect(stream.problems).toEqual([]);
  });

  it('without a principal, tasks/list of a session shows only the tasks that session created', async () => {
    const first = await rawInitialize(running.mcpUrl, { capabilities: {} });
    const second = await rawInitialize(running.mcpUrl, { capabilities: {} });
    const post = (sessionId: string, id: string, method: string, params: Record<string, unknown>) =>
      legacyPost(running.mcpUrl, { id, method, params }, { sessionId });
    const created = await post(first.sessionId, 'c1', 'tools/call', { name: 'slow', arguments: { ms: 0 }, task: {} });
    const taskId = (created.messages[0].result as { task: { taskId: string } }).task.taskId;
    const listed = (sessionId: string) =>
      post(sessionId, 'l', 'tasks/list', {}).then((r) =>
        (r.messages[0].result as { tasks: Array<{ taskId: string }> }).tasks.map((t) => t.taskId),
      );
    expect(await listed(first.sessionId)).toEqual([taskId]);
    expect(await listed(second.sessionId)).toEqual([]);
  });

  it('the wire rules: a required tool without task is -32601, a tool error is a failed task, tasks/result returns the call’s answer', async () => {
    const caller = await connect('alice');
    const required = await raw(caller, 'tools/call', { name: 'slow', arguments: { ms: 0 } });
    expect(required.messages[0].error).toMatchObject({ code: -32601 });
    const forbidden = await raw(caller, 'tools/call', { name: 'plain', arguments: {}, task: {} });
    expect(forbidden.messages[0].error).toMatchObject({ code: -32601 });
    const badTtl = await raw(caller, 'tools/call', { name: 'slow', arguments: { ms: 0 }, task: { ttl: 'soon' } });
    expect(badTtl.messages[0].error).toMatchObject({ code: -32602 });

    const created = await raw(caller, 'tools/call', { name: 'broken', arguments: {}, task: { ttl: 60_000 } });
    const task = (created.messages[0].result as { task: { taskId: string; ttl: number } }).task;
    assertMatchesLegacyDef('CreateTaskResult', created.messages[0].result);
    expect(task.ttl).toBe(60_000);
    // tasks/result blocks until the task ends, then answers the tool's own result (isError), with related-task.
    const result = await raw(caller, 'tasks/result', { taskId: task.taskId });
    expect(result.messages[0].result).toMatchObject({
      isError: true,
      _meta: { [RELATED_TASK]: { taskId: task.taskId } },
    });
    const got = await raw(caller, 'tasks/get', { taskId: task.taskId });
    expect(got.messages[0].result).toMatchObject({ status: 'failed' });

    const badCursor = await raw(caller, 'tasks/list', { cursor: 'nope' });
    expect(badCursor.messages[0].error).toMatchObject({ code: -32602 });
  });
});

describe('2025-11-25 core tasks over stdio', () => {
  let stdio: InProcessStdio;
  beforeAll(async () => {
    stdio = await startInProcessStdio({ imports: [legacyTasksModule()] });
  });
  afterAll(async () => {
    await stdio?.close();
  });

  it('creates a task, asks for input on stdout with related-task, reports status, and answers tasks/result', async () => {
    const request = (id: string, method: string, params: Record<string, unknown>) => {
      stdio.send({ jsonrpc: '2.0', id, method, params });
      return stdio.output.response(id);
    };
    const init = await request('init', 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: {} },
      clientInfo: { name: 'stdio-tasks', version: '1' },
    });
    expect(init.result.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    const created = await request('create', 'tools/call', { name: 'askName', arguments: {}, task: { ttl: 30_000 } });
    assertValidLegacyServerMessage(created, 'tools/call');
    const taskId = created.result.task.taskId as string;
    const ask = await stdio.output.waitFor((message) => message.method === 'elicitation/create');
    assertValidLegacyServerMessage(ask);
    expect(ask.params._meta[RELATED_TASK]).toEqual({ taskId });
    stdio.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'dora' } } });

    const result = await request('result', 'tasks/result', { taskId });
    assertValidLegacyServerMessage(result, 'tasks/result');
    expect(result.result).toMatchObject({
      content: [{ type: 'text', text: 'hello dora' }],
      _meta: { [RELATED_TASK]: { taskId } },
    });
    const statuses = stdio.output.messages.filter((message) => message.method === 'notifications/tasks/status');
    for (const notification of statuses) assertValidLegacyServerMessage(notification);
    expect(statuses.map((message) => message.params.status)).toEqual(['input_required', 'working', 'completed']);
    const listed = await request('list', 'tasks/list', {});
    assertValidLegacyServerMessage(listed, 'tasks/list');
    expect(listed.result.tasks.map((task: { taskId: string }) => task.taskId)).toEqual([taskId]);
  });
});

describe('2025-11-25 beforeTask with the module settings', () => {
  let stdio: InProcessStdio;
  beforeAll(async () => {
    stdio = await startInProcessStdio({ imports: [legacyTasksModule({ logging: { defaultLevel: 'warning' } })] });
  });
  afterAll(async () => {
    await stdio?.close();
  });

  it("logs at logging.defaultLevel from a session's beforeTask, as from any handler (the settings ride on the call)", async () => {
    const request = (id: string, method: string, params: Record<string, unknown>) => {
      stdio.send({ jsonrpc: '2.0', id, method, params });
      return stdio.output.response(id);
    };
    await request('init', 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: {} },
      clientInfo: { name: 'stdio-tasks', version: '1' },
    });
    stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await request('level', 'logging/setLevel', { level: 'debug' });

    stdio.send({
      jsonrpc: '2.0',
      id: 'create',
      method: 'tools/call',
      params: { name: 'greetLater', arguments: {}, task: {} },
    });
    const ask = await stdio.output.waitFor((message) => message.method === 'elicitation/create');
    const log = stdio.output.messages.find((message) => message.method === 'notifications/message');
    assertValidLegacyServerMessage(log);
    expect(log?.params).toMatchObject({ level: 'warning', data: 'asking before the task exists' });
    stdio.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'eve' } } });
    const created = await stdio.output.response('create');
    expect(created.result.task.taskId).toEqual(expect.any(String));
  });
});
