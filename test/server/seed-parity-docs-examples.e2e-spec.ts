import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { IndexerModule, QuietModule } from '../../docs/examples/logging-and-cancellation/logging.module.js';
import { MigrationTools } from '../../docs/examples/progress/emitter-names.tools.js';
import { QuietBuilderModule } from '../../docs/examples/stdio/progress-from-drop.module.js';
import { LoggingDefaultsTools } from '../fixtures/logging-defaults.fixture.js';
import { WrappedJobTools } from '../fixtures/wrapped-progress.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { recordingFetch } from '../support/wire-schema.validator.js';

/**
 * The examples issue #19 added to the guides (docs/examples/…), run: the logging modules of
 * logging-and-cancellation.md, the drop module of stdio.md and the design's emitter names of progress.md.
 */

const messagesOf = async (recorder: ReturnType<typeof recordingFetch>, method: string) =>
  (await recorder.settled())
    .map((entry) => entry.message as { method?: string; params?: unknown })
    .filter((message) => message?.method === method)
    .map((message) => message.params);

describe.each(ADAPTERS)('seed-parity docs examples (%s)', (adapter) => {
  let running: RunningApp | undefined;
  let client: Client | undefined;

  afterEach(async () => {
    await client?.close();
    await running?.close();
    running = client = undefined;
  });

  async function serve(module: unknown, provider: unknown) {
    running = await startApp(adapter, { imports: [module as never], providers: [provider as never] });
    const recorder = recordingFetch();
    client = await connectClient(running.mcpUrl, { fetch: recorder.fetch });
    return { client, recorder };
  }

  it('logging.module.ts: IndexerModule logs ctx.log(data) at notice', async () => {
    const { client, recorder } = await serve(IndexerModule, LoggingDefaultsTools);
    await client.callTool({
      name: 'notes',
      arguments: { note: 'n' },
      _meta: { 'io.modelcontextprotocol/logLevel': 'notice' },
    });
    expect(
      (await messagesOf(recorder, 'notifications/message')).map((params) => (params as { level: string }).level),
    ).toEqual(['notice', 'warning']);
  });

  it('logging.module.ts: QuietModule advertises no logging and sends no log', async () => {
    const { client, recorder } = await serve(QuietModule, LoggingDefaultsTools);
    expect(client.getServerCapabilities()).not.toHaveProperty('logging');
    const result = await client.callTool({
      name: 'notes',
      arguments: { note: 'n' },
      _meta: { 'io.modelcontextprotocol/logLevel': 'debug' },
    });
    expect((result.content as Array<{ text: string }>)[0].text).toBe('{"plain":false,"warned":false}');
    expect(await messagesOf(recorder, 'notifications/message')).toEqual([]);
  });

  it('progress-from-drop.module.ts: QuietBuilderModule starts and serves a wrapped command', async () => {
    const { client } = await serve(QuietBuilderModule, WrappedJobTools);
    const result = await client.callTool({ name: 'wrapped_job', arguments: { run: 'docs', steps: 1 } });
    expect(result.content).toEqual([{ type: 'text', text: 'job docs done' }]);
  });

  it('emitter-names.tools.ts: complete(fraction) and a CountingProgressEmitter, in one order', async () => {
    const { client, recorder } = await serve(QuietModule, MigrationTools);
    const result = await client.callTool({ name: 'migrate', arguments: {} }, { onprogress: () => undefined });
    expect(result.content).toEqual([{ type: 'text', text: 'migrated' }]);
    const progress = (await messagesOf(recorder, 'notifications/progress')) as Array<Record<string, unknown>>;
    expect(progress.map(({ progressToken: _token, ...rest }) => rest)).toEqual([
      { progress: 0.5, total: 1, message: 'Copied the schema' },
      { progress: 0.9, total: 1, message: 'Copied the rows' },
      { progress: 1, message: 'Checked the first table' },
    ]);
  });
});
