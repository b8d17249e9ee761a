import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisTasksReplicaModule, ReplicaProbe } from '../fixtures/redis-tasks.fixture.js';
import { openExtTasksSession } from '../support/ext-tasks-session.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { sleep, until } from '../support/wait.util.js';

const TASKS_META = requestMeta({
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
});

/** The official client on replica `callUrl` with an ext-tasks session whose `tasks/*` requests go to `tasksUrl`. */
const connect = (callUrl: URL, tasksUrl: URL, user: string) =>
  openExtTasksSession({ callUrl, tasksUrl, headers: { 'x-user': user }, clientName: 'nest-mcp-redis-tasks-e2e' });

/** A raw 2026-07-28 request that declares the tasks extension, as `user`. */
function taskRequest(url: URL, method: string, params: Record<string, unknown>, user = 'alice'): Promise<RawResponse> {
  const headers: Record<string, string> = { 'x-user': user };
  if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
  return mcpPost(url, { method, params, meta: TASKS_META, headers });
}

async function taskStatus(url: URL, taskId: string, user = 'alice'): Promise<Record<string, unknown>> {
  const response = await taskRequest(url, 'tasks/get', { taskId }, user);
  const body = response.json as { result?: Record<string, unknown>; error?: unknown };
  if (!body?.result) throw new Error(`tasks/get answered ${response.status}: ${response.text}`);
  return body.result;
}

describe.each(ADAPTERS)('tasks on Redis across two replicas (%s)', (adapter) => {
  let redis: RedisServer;
  let a: RunningApp;
  let b: RunningApp;
  let probes: { a: ReplicaProbe; b: ReplicaProbe };

  beforeAll(async () => {
    redis = await startRedisServer();
    const replica = () =>
      startApp(adapter, {
        imports: [
          RedisTasksReplicaModule.forRoot({
            url: redis.url,
            keyPrefix: `tasks-e2e-${adapter}`,
            commandTimeoutMs: 1_000,
            tasks: { concurrency: 4 },
          }),
        ],
      });
    [a, b] = await Promise.all([replica(), replica()]);
    probes = { a: a.app.get(ReplicaProbe), b: b.app.get(ReplicaProbe) };
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.dispose();
  });

  it('serves a task created on A from B (tasks/get), whichever replica runs its round', async () => {
    const { session, close } = await connect(a.mcpUrl, b.mcpUrl, 'alice');
    try {
      const exec = await session.callTool('long_job', { label: 'shared', ms: 50 }, { task: { preference: 'require' } });
      expect(exec.kind).toBe('task');
      const { outcome } = await exec.settle();
      expect(outcome.status).toBe('completed');
      expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'done shared' }] });
      expect(probes.a.started.has('shared') || probes.b.started.has('shared')).toBe(true);
      // Both replicas read the same task; another principal reads nothing on either.
      for (const url of [a.mcpUrl, b.mcpUrl])
        expect(await taskStatus(url, exec.handle!.taskId)).toMatchObject({ status: 'completed' });
      const foreign = await taskRequest(b.mcpUrl, 'tasks/get', { taskId: exec.handle!.taskId }, 'bob');
      expect(foreign.json).toMatchObject({ error: { code: -32602 } });
    } finally {
      await close();
    }
  });

  it('continues an input_required task answered with tasks/update on B, and completes it', async () => {
    const { session, asked, close } = await connect(a.mcpUrl, b.mcpUrl, 'alice');
    try {
      const exec = await session.callTool(
        'incident_report',
        { incident: 'INC-7' },
        { task: { preference: 'require' } },
      );
      const statuses: string[] = [];
      const { outcome } = await exec.settle({
        onEvent: (event) => void (event.type === 'task' && statuses.push(event.task.status)),
      });
      expect(outcome.status).toBe('completed');
      expect(resultFromTaskOutcome(outcome)).toMatchObject({
        content: [{ type: 'text', text: 'report INC-7: with logs' }],
      });
      expect(asked).toEqual(['Include the logs of INC-7?']);
      expect(statuses).toContain('input_required');
      // The handler ran twice in all (asked, then replayed with the answer), on either replica.
      expect((probes.a.rounds.get('INC-7') ?? 0) + (probes.b.rounds.get('INC-7') ?? 0)).toBe(2);
    } finally {
      await close();
    }
  });

  it('aborts a round running on one replica when the task is cancelled on the other (ctx.signal fires)', async () => {
    const created = await taskRequest(a.mcpUrl, 'tools/call', {
      name: 'long_job',
      arguments: { label: 'cancel-me', ms: 60_000 },
    });
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    await until(
      () => probes.a.started.has('cancel-me') || probes.b.started.has('cancel-me'),
      5_000,
      'the round to start',
    );
    const [running, other, otherUrl] = probes.a.started.has('cancel-me')
      ? [probes.a, probes.b, b.mcpUrl]
      : [probes.b, probes.a, a.mcpUrl];
    const cancelled = await taskRequest(otherUrl, 'tasks/cancel', { taskId });
    expect(cancelled.json).toMatchObject({ result: {} });
    await until(() => running.aborted.has('cancel-me'), 5_000, 'the round on the other replica to see ctx.signal');
    expect(other.started.has('cancel-me')).toBe(false);
    expect(await taskStatus(a.mcpUrl, taskId)).toMatchObject({ status: 'cancelled' });
  });

  it('answers a task tool with a clear 503 error when Redis is down, while a plain tool keeps working', async () => {
    await redis.stop({ hard: true });
    try {
      const refused = await taskRequest(a.mcpUrl, 'tools/call', {
        name: 'long_job',
        arguments: { label: 'no-redis', ms: 10 },
      });
      expect(refused.status).toBe(503);
      expect(refused.json).toMatchObject({
        error: { code: -32603, message: expect.stringMatching(/^Task (store|queue) unavailable: /) },
      });
      const plain = await mcpPost(b.mcpUrl, {
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'still here' } },
      });
      expect(plain.status).toBe(200);
      expect(plain.json).toMatchObject({ result: { content: [{ type: 'text', text: 'echo: still here' }] } });
      expect(probes.a.started.has('no-redis') || probes.b.started.has('no-redis')).toBe(false);
    } finally {
      await redis.start();
    }
    // Back: tasks run again (one created while a connection still reconnects may fail with the reason, not hang).
    const deadline = Date.now() + 15_000;
    for (let attempt = 1; ; attempt++) {
      const created = await taskRequest(b.mcpUrl, 'tools/call', {
        name: 'long_job',
        arguments: { label: `after-outage-${attempt}`, ms: 10 },
      });
      const taskId = (created.json as { result?: { taskId?: string } }).result?.taskId;
      let status: unknown;
      while (taskId && (status === undefined || status === 'working')) {
        status = (await taskStatus(a.mcpUrl, taskId)).status;
        if (Date.now() > deadline) break;
        if (status === 'working') await sleep(50);
      }
      if (status === 'completed') break;
      if (Date.now() > deadline)
        throw new Error(
          `tasks did not run again after Redis restarted: ${created.text} (last status ${String(status)})`,
        );
      await sleep(200);
    }
  });
});
