import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionEndpointId,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type SerializedTaskReference,
  type V2RequestFraming,
} from '@modelcontextprotocol/ext-tasks/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NoMalloryGuard, TaskProbe, TasksFixtureModule } from '../fixtures/tasks.fixture.js';
import { extTasksRawDispatch } from '../support/ext-tasks-dispatch.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { until, untilAsync } from '../support/wait.util.js';
import { requestMeta } from '../support/raw-request.util.js';
import { openStream } from '../support/sse-stream.reader.js';
import { taskId as asTaskId } from '@modelcontextprotocol/ext-tasks/core';

const PROTOCOL = '2026-07-28';
const clientInfo = { name: 'nest-mcp-tasks-e2e', version: '1.0.0' };
const clientCapabilities = { elicitation: { form: {} } };

/** An official client and an ext-tasks session on it, for one caller. */
async function connect(
  url: URL,
  user: string,
  answer: (message: string) => Record<string, unknown> = () => ({ confirm: true }),
) {
  const client = new Client(clientInfo, {
    capabilities: clientCapabilities,
    versionNegotiation: { mode: { pin: PROTOCOL } },
  });
  const userFetch: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'x-user': user } });
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: userFetch }));
  const framing: V2RequestFraming = { protocolVersion: PROTOCOL, clientInfo, clientCapabilities };
  const asked: string[] = [];
  const session = createTaskSessionFromClient(client, {
    endpointId: await createTaskSessionEndpointId('nest-mcp-tasks-e2e', { url: url.href }),
    rawDispatch: extTasksRawDispatch(url, { 'x-user': user }),
    v2RequestFraming: framing,
    onInputRequest: createApplicationInputHandler({
      elicitation: async (request) => {
        const message = String(request.params.message ?? '');
        asked.push(message);
        return { action: 'accept', content: answer(message) as never };
      },
      sampling: async () => {
        throw new Error('no sampling in these tests');
      },
      roots: async () => ({ roots: [] }),
    }),
  });
  return { client, session, asked, close: async () => (await session.close(), await client.close()) };
}

describe.each(ADAPTERS)('tasks extension with the official ext-tasks client (%s)', (adapter) => {
  let running: RunningApp;
  let probe: TaskProbe;
  beforeEach(async () => {
    running = await startApp(adapter, { imports: [TasksFixtureModule] });
    probe = running.app.get(TaskProbe);
  });
  afterEach(() => running?.close());

  it('answers a tool without a task at once, and a task tool with a task', async () => {
    const { session, close } = await connect(running.mcpUrl, 'alice');
    const immediate = await session.callTool('echo', { text: 'hi' });
    expect(immediate.kind).toBe('immediate');
    const { outcome } = await immediate.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'echo: hi' }] });

    const task = await session.callTool('long_job', { label: 'quick', ms: 10 }, { task: { preference: 'require' } });
    expect(task.kind).toBe('task');
    const settled = await task.settle();
    expect(settled.outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(settled.outcome)).toMatchObject({ content: [{ type: 'text', text: 'done quick' }] });
    await close();
  });

  it('runs a task with an input round: input_required, answered with tasks/update, then completed', async () => {
    const { session, asked, close } = await connect(running.mcpUrl, 'alice');
    const exec = await session.callTool('incident_report', { incident: 'INC-1' }, { task: { preference: 'require' } });
    const statuses: string[] = [];
    const { outcome } = await exec.settle({
      onEvent: (event) => void (event.type === 'task' && statuses.push(event.task.status)),
    });
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject({
      content: [{ type: 'text', text: 'report INC-1: with logs' }],
    });
    expect(asked).toEqual(['Include the logs of INC-1?']);
    expect(statuses).toContain('input_required');
    // The handler was replayed once with the answer (MRTR semantics).
    expect(probe.rounds.get('INC-1')).toBe(2);
    await close();
  });

  it('ctx.status sets the status message of a working task directly; outside a task it answers false', async () => {
    const { client, session, close } = await connect(running.mcpUrl, 'alice');
    const exec = await session.callTool('staged_job', { label: 'staged' }, { task: { preference: 'require' } });
    expect(exec.kind).toBe('task');
    const task = session.task(exec.handle!.taskId);
    await until(() => probe.release.has('staged'), 5_000, 'the task round to wait for its release');
    await untilAsync(
      async () => (await task.snapshot()).statusMessage === 'Waiting for a build agent',
      5_000,
      'the status message from ctx.status',
    );
    expect(probe.statusWritten.get('staged')).toBe(true);
    expect((await task.snapshot()).status).toBe('working');
    probe.release.get('staged')!();
    const { outcome } = await exec.settle();
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'staged staged' }] });
    // Written in order with the progress before it ("Building"): the latest wins, and stays on the completed task.
    expect((await task.snapshot()).statusMessage).toBe('Uploading the artifacts');

    // The plain client does not ask for the tasks extension: the optional task tool runs as an ordinary call.
    const direct = client.callTool({ name: 'staged_job', arguments: { label: 'direct' } });
    await until(() => probe.release.has('direct'), 5_000, 'the direct call to wait for its release');
    probe.release.get('direct')!();
    expect(await direct).toMatchObject({ content: [{ type: 'text', text: 'staged direct' }] });
    expect(probe.statusWritten.get('direct')).toBe(false);
    await close();
  });

  it('cancels a running task: ctx.signal fires and the task ends cancelled', async () => {
    const { session, close } = await connect(running.mcpUrl, 'alice');
    const exec = await session.callTool(
      'long_job',
      { label: 'cancel-me', ms: 60_000 },
      { task: { preference: 'require' } },
    );
    expect(exec.kind).toBe('task');
    await exec.cancel();
    await until(() => probe.aborted.has('cancel-me'), 5_000, 'the task round to see ctx.signal');
    const view = await session.task(exec.handle!.taskId).snapshot();
    expect(view.status).toBe('cancelled');
    await close();
  });

  it('recovers a task by id after the client reconnects', async () => {
    const first = await connect(running.mcpUrl, 'alice');
    const exec = await first.session.callTool(
      'long_job',
      { label: 'recover', ms: 300 },
      { task: { preference: 'require' } },
    );
    let reference: SerializedTaskReference | undefined;
    if (exec.kind !== 'task') throw new Error('expected a task');
    await exec.handoff((ref) => void (reference = ref));
    await exec.result().catch(() => undefined);
    await first.close();

    const second = await connect(running.mcpUrl, 'alice');
    const resumed = await second.session.resumeTask(reference!);
    const { outcome } = await resumed.settle();
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'done recover' }] });
    await second.close();
  });

  it('answers a foreign principal exactly as for an unknown task', async () => {
    const alice = await connect(running.mcpUrl, 'alice');
    const exec = await alice.session.callTool(
      'long_job',
      { label: 'private', ms: 60_000 },
      { task: { preference: 'require' } },
    );
    const taskId = exec.handle!.taskId;
    const bob = await connect(running.mcpUrl, 'bob');
    const foreign = await bob.session
      .task(taskId)
      .snapshot()
      .catch((error: unknown) => error);
    const unknown = await bob.session
      .task(asTaskId('no-such-task-id-000000'))
      .snapshot()
      .catch((error: unknown) => error);
    expect(foreign).toMatchObject({ code: -32602 });
    expect((foreign as Error).message).toBe((unknown as Error).message);
    await expect(bob.session.task(taskId).cancel()).rejects.toMatchObject({ code: -32602 });
    // Alice's task is untouched by Bob's attempts.
    expect((await alice.session.task(taskId).snapshot()).status).toBe('working');
    await exec.cancel();
    await bob.close();
    await alice.close();
  });

  it("sends notifications/tasks on a listen stream for the caller's own acknowledged task ids only", async () => {
    const alice = await connect(running.mcpUrl, 'alice');
    const bob = await connect(running.mcpUrl, 'bob');
    const mine = await alice.session.callTool(
      'long_job',
      { label: 'watched', ms: 300 },
      { task: { preference: 'require' } },
    );
    const theirs = await bob.session.callTool(
      'long_job',
      { label: 'hidden', ms: 100 },
      { task: { preference: 'require' } },
    );
    const mineId = mine.handle!.taskId;
    const theirsId = theirs.handle!.taskId;
    const meta = requestMeta({
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
    const stream = await openStream(running.mcpUrl, {
      method: 'subscriptions/listen',
      id: 'listen-1',
      params: { notifications: { taskIds: [mineId, theirsId, 'no-such-task'] } },
      meta,
      headers: { 'x-user': 'alice' },
    });
    try {
      const [ack] = await stream.nextFrames(1);
      expect(ack.method).toBe('notifications/subscriptions/acknowledged');
      expect(ack.params?.notifications).toEqual({ taskIds: [mineId] });
      const done = await stream.waitFor(
        (message) => message.method === 'notifications/tasks' && message.params?.status === 'completed',
        'the completed task',
        5_000,
      );
      expect(done.params).toMatchObject({
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' },
        taskId: mineId,
        result: { content: [{ type: 'text', text: 'done watched' }] },
      });
      await theirs.settle();
      expect(stream.messages.filter((message) => message.params?.taskId === theirsId)).toEqual([]);
    } finally {
      stream.close();
      await bob.close();
      await alice.close();
    }
  });

  it('runs the guards when the task is created, against the creating request, and not again in its rounds', async () => {
    NoMalloryGuard.runs = 0;
    const alice = await connect(running.mcpUrl, 'alice');
    const exec = await alice.session.callTool('guarded_job', {}, { task: { preference: 'require' } });
    const { outcome } = await exec.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'guarded done' }] });
    expect(NoMalloryGuard.runs).toBe(1);
    await alice.close();

    const mallory = await connect(running.mcpUrl, 'mallory');
    const refused = await mallory.session.callTool('guarded_job', {});
    expect(refused.kind).toBe('immediate');
    const settled = await refused.settle();
    expect(resultFromTaskOutcome(settled.outcome)).toMatchObject({ isError: true });
    await mallory.close();
  });

  it('fires ctx.signal of running task rounds when the server shuts down', async () => {
    const own = await startApp(adapter, { imports: [TasksFixtureModule] });
    const ownProbe = own.app.get(TaskProbe);
    const alice = await connect(own.mcpUrl, 'alice');
    const exec = await alice.session.callTool(
      'long_job',
      { label: 'shutdown', ms: 60_000 },
      { task: { preference: 'require' } },
    );
    expect(exec.kind).toBe('task');
    await until(() => ownProbe.started.has('shutdown'), 2_000, 'the round to start');
    exec.detach();
    // The server goes first: closing the client would cancel the task (tasks/cancel) instead.
    await own.close();
    expect(ownProbe.aborted.has('shutdown')).toBe(true);
    await alice.close().catch(() => undefined);
  });

  it('refuses taskIds on a listen stream from a request without the extension (-32021)', async () => {
    const stream = await openStream(running.mcpUrl, {
      method: 'subscriptions/listen',
      id: 'listen-2',
      params: { notifications: { taskIds: ['x'] } },
    });
    await stream.ended;
    expect(stream.status).toBe(400);
    expect(JSON.parse(stream.raw)).toMatchObject({
      error: { code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } },
    });
  });
});
