import type { INestApplication } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpTestingClient, McpTestingError } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskProbe, TasksFixtureModule } from '../fixtures/tasks.fixture.js';
import { until } from '../support/wait.util.js';

/**
 * nest-mcp/testing driving tasks (`@McpTool({ task })`): start, poll, answer an input round, cancel, await the
 * result, in-process and over HTTP, through the real dispatcher.
 */

const ACCEPT_LOGS = { action: 'accept', content: { confirm: true } };

describe.each(['in-process', 'http'] as const)('McpTestingClient tasks (%s)', (mode) => {
  let moduleRef: TestingModule;
  let app: INestApplication | undefined;
  let client: McpTestingClient;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [TasksFixtureModule] }).compile();
    if (mode === 'in-process') {
      client = await McpTestingClient.create(moduleRef, {
        headers: { 'x-user': 'alice' },
        capabilities: { elicitation: { form: {} } },
      });
    } else {
      app = moduleRef.createNestApplication({ logger: false });
      await app.listen(0, '127.0.0.1');
      client = await McpTestingClient.connect(app, {
        headers: { 'x-user': 'alice' },
        capabilities: { elicitation: { form: {} } },
      });
    }
  });
  afterAll(async () => {
    await (app ? app.close() : moduleRef.close());
  });

  it('starts a task and awaits its result', async () => {
    const task = await client.startTask('long_job', { label: `${mode}-quick`, ms: 10 });
    expect(task.taskId).toMatch(/^[\w-]{24}$/);
    expect(['working', 'completed']).toContain(task.status);

    const result = await task.result();

    expect(result.text()).toBe(`done ${mode}-quick`);
    expect(task.status).toBe('completed');
    expect(task.done).toBe(true);
  });

  // #region docs:kit-task-status
  it('shows what ctx.status set while the task works', async () => {
    const label = `${mode}-staged`;
    const task = await client.startTask('staged_job', { label });
    await until(() => moduleRef.get(TaskProbe).release.has(label), 5_000, 'the round to wait for its release');

    expect((await task.poll()).statusMessage).toBe('Waiting for a build agent');

    moduleRef.get(TaskProbe).release.get(label)!();
    expect((await task.result()).text()).toBe(`staged ${label}`);
  });
  // #endregion docs:kit-task-status

  it('polls a task through an input round answered with tasks/update', async () => {
    const task = await client.startTask('incident_report', { incident: `INC-${mode}` });

    const asking = await task.waitFor('input_required');
    expect(asking.inputRequests).toBeDefined();
    const [[key, request]] = Object.entries(asking.inputRequests!);
    expect(request.method).toBe('elicitation/create');
    expect(request.params?.message).toBe(`Include the logs of INC-${mode}?`);
    expect(asking.statusMessage).toBeDefined();

    await task.answer(key, ACCEPT_LOGS);

    expect((await task.result()).text()).toBe(`report INC-${mode}: with logs`);
    expect(moduleRef.get(TaskProbe).rounds.get(`INC-${mode}`)).toBe(2); // replayed once with the answer
  });

  it('answers input rounds from scripted answers while awaiting the result', async () => {
    const task = await client.startTask('incident_report', { incident: `INC-${mode}-2` });

    const result = await task.result({ answers: [{ action: 'decline' }] });

    expect(result.text()).toBe(`report INC-${mode}-2: without logs`);
    expect(result.inputRequests.map((request) => request.key)).toHaveLength(1);
  });

  // #region docs:task-cancel
  it('cancels a running task: its ctx.signal fires and result() rejects', async () => {
    const label = `${mode}-cancelled`;
    const task = await client.startTask('long_job', { label, ms: 30_000 });
    await task.waitFor('working');
    await expect.poll(() => moduleRef.get(TaskProbe).started.has(label)).toBe(true); // the handler runs

    await task.cancel();

    expect((await task.poll()).status).toBe('cancelled');
    await expect(task.result()).rejects.toThrow(/was cancelled/);
    await expect.poll(() => moduleRef.get(TaskProbe).aborted.has(label)).toBe(true);
  });
  // #endregion docs:task-cancel

  it('reaches a task by id, and refuses it to another principal like an unknown task', async () => {
    const task = await client.startTask('long_job', { label: `${mode}-by-id`, ms: 10 });

    const again = await client.task(task.taskId);
    expect((await again.result()).text()).toBe(`done ${mode}-by-id`);

    await expect(client.task(task.taskId, { headers: { 'x-user': 'mallory' } })).rejects.toSatisfy(
      (error: unknown) => error instanceof McpTestingError && error.code === -32602 && error.method === 'tasks/get',
    );
  });

  it('refuses to start a task of a tool that is no task tool', async () => {
    await expect(client.startTask('echo', { text: 'hi' })).rejects.toThrow(/without creating a task/);
  });
});
