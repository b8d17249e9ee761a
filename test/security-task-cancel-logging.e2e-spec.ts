import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskProbe, TasksFixtureModule } from './fixtures/tasks.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from './support/app.factory.js';
import { mcpPost, requestMeta } from './support/raw-request.util.js';
import { RecordingLogger } from './support/recording.logger.js';
import { until } from './support/wait.util.js';

const TASKS_META = requestMeta({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } });

describe.each(ADAPTERS)('probe (%s)', (adapter) => {
  let running: RunningApp;
  let logger: RecordingLogger;
  beforeEach(async () => {
    running = await startApp(adapter, { imports: [TasksFixtureModule] });
    logger = new RecordingLogger();
    running.app.useLogger(logger);
  });
  afterEach(() => running?.close());

  it('cancel', async () => {
    const created = await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'long_job', arguments: { label: 'x', ms: 60_000 } }, meta: TASKS_META, headers: { 'x-user': 'alice' } });
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    await until(() => running.app.get(TaskProbe).started.has('x'), 5000, 'start');
    const cancel = await mcpPost(running.mcpUrl, { method: 'tasks/cancel', params: { taskId }, meta: TASKS_META, headers: { 'x-user': 'alice', 'mcp-name': taskId } });
    console.log(cancel.status, cancel.text);
    await until(() => running.app.get(TaskProbe).aborted.has('x'), 5000, 'abort');
    await new Promise((r) => setTimeout(r, 200));
    console.log('ERRORS', logger.errors);
    console.log('WARN', logger.warnings);
    expect(logger.errors).toEqual([]);
  });
});
