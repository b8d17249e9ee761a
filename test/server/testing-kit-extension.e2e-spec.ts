import { Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool } from 'nest-mcp';
import { McpTestingClient, type McpTestingError } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpEventsExtension } from '../../libs/mcp/src/events/events.extension.js';
import { McpAppsExtension } from '../../libs/mcp/src/server/apps.extension.js';
import { MCP_EXTENSIONS, type McpExtension } from '../../libs/mcp/src/server/extension.interface.js';
import type { McpRoute } from '../../libs/mcp/src/server/mcp-route.interface.js';
import { McpSkillMethods } from '../../libs/mcp/src/skills/skill-methods.service.js';
import { McpTaskMethods } from '../../libs/mcp/src/tasks/task-methods.service.js';
import { ADAPTERS, type RunningApp, startApp } from '../support/app.factory.js';

/**
 * The testing kit over HTTP learns which `params` field an `Mcp-Name` header mirrors from the application's wire
 * profile, so an extension's methods reach it through the extension contract only (ADR 0030; docs/architecture.md,
 * "How to add an extension"): an extension of this test's own, with a `nameParam` the kit has never heard of, and
 * the tasks extension's `tasks/get`, on both adapters.
 */

const NOTES = 'com.example/notes';

/** A small extension: `notes/get`, whose `Mcp-Name` mirrors `noteId`; it answers with the header it was sent. */
class NotesExtension implements McpExtension {
  readonly id = NOTES;

  routes(): Iterable<readonly [string, McpRoute]> {
    const get: McpRoute = {
      extension: NOTES,
      delivery: 'response',
      cancellableByDisconnect: true,
      nameParam: 'noteId',
      handle: async (scope) => {
        const headers = (scope.httpRequest as { headers: Record<string, string | undefined> }).headers;
        return { noteId: String(scope.params.noteId), mcpName: headers['mcp-name'] ?? null };
      },
    };
    return [['notes/get', get]];
  }

  advertise(): Record<string, never> {
    return {};
  }
}

@Injectable()
class SlowTools {
  @McpTool({ description: 'Runs as a task', task: 'required' })
  slow(): string {
    return 'done';
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'kit-extension-e2e', version: '1.0.0' })],
  providers: [SlowTools],
})
class KitExtensionModule {}

describe.each(ADAPTERS)('the testing kit over HTTP and the extension contract (%s)', (adapter) => {
  let running: RunningApp;
  let client: McpTestingClient;

  beforeAll(async () => {
    running = await startApp(
      adapter,
      { imports: [KitExtensionModule] },
      {
        // The module's own list of extensions, with this test's appended (as McpModule would list a new one).
        customize: (builder) =>
          builder.overrideProvider(MCP_EXTENSIONS).useFactory({
            factory: (...extensions: McpExtension[]) => [...extensions, new NotesExtension()],
            inject: [McpTaskMethods, McpAppsExtension, McpSkillMethods, McpEventsExtension],
          }),
      },
    );
    client = await McpTestingClient.connect(running.app);
  });
  afterAll(() => running.close());

  it("an extension's own method gets the Mcp-Name its route names", async () => {
    expect(Object.keys((await client.discover()).capabilities.extensions ?? {})).toContain(NOTES);

    const answer = await client.request('notes/get', { noteId: 'n-42' });

    expect(answer).toMatchObject({ noteId: 'n-42', mcpName: 'n-42' });
  });

  it('the server checks that header: the same request with another Mcp-Name is refused with -32020', async () => {
    const error = (await client
      .request('notes/get', { noteId: 'n-42' }, { headers: { 'mcp-name': 'n-41' } })
      .catch((caught: unknown) => caught)) as McpTestingError;

    expect(error).toMatchObject({ code: -32020, httpStatus: 400 });
  });

  it("a value that is not plain header text is sent Base64-encoded, as the route's check decodes it", async () => {
    const answer = await client.request<{ noteId: string; mcpName: string }>('notes/get', { noteId: 'note ü' });

    expect(answer.noteId).toBe('note ü');
    expect(answer.mcpName).toBe(`=?base64?${Buffer.from('note ü').toString('base64')}?=`);
  });

  it("the tasks extension's tasks/get carries its taskId the same way", async () => {
    const task = await client.startTask('slow', {});

    const state = await task.poll();

    expect(state.taskId).toBe(task.taskId);
    expect((await task.result()).text()).toBe('done');
  });
});
