import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import type { Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpModule, McpPrompt, McpPublisher, McpResource, McpTool } from 'nest-mcp';
import { InMemoryEventBus, type McpChangeEvent, TASKS_EXTENSION } from 'nest-mcp/backend';
import { McpSubscriptionsService } from '../../libs/mcp/src/subscriptions/subscriptions.service.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient, type LegacyConnection } from '../support/legacy-client.factory.js';
import { principalFromUserHeader } from '../support/principal.util.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { listen, openStream, type OpenStream } from '../support/sse-stream.reader.js';
import { until } from '../support/wait.util.js';

/**
 * The event bus's own `resync` event (events may have been missed, e.g. the bus reconnected), published on an
 * in-process bus: every listen stream is told again about everything it follows (its lists, its URIs, the current
 * state of its tasks), 2025-11-25 sessions likewise; the event reaches everyone without an audience or the
 * `authorizeDelivery` hook, and `McpPublisher` offers no way to publish it.
 */

const SUB = 'io.modelcontextprotocol/subscriptionId';
const LISTS = [
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
] as const;

@Injectable()
class ResyncFeatures {
  @McpTool({ description: 'Answers pong' })
  ping(): string {
    return 'pong';
  }

  @McpTool({ name: 'quick_job', description: 'A task that completes at once', task: 'required' })
  async quickJob(): Promise<string> {
    return 'quick done';
  }

  @McpPrompt({ description: 'Greets' })
  greet(): string {
    return 'Hello';
  }

  @McpResource({ uri: 'config://app', mimeType: 'application/json' })
  app(): string {
    return '{}';
  }

  @McpResource({ uri: 'config://other', mimeType: 'application/json' })
  other(): string {
    return '{}';
  }
}

/** What the `authorizeDelivery` hook was asked, and who it refuses (mallory, always). */
const asked: McpChangeEvent['type'][] = [];

@Module({})
class ResyncModule {
  static with(bus: InMemoryEventBus): DynamicModule {
    return {
      module: ResyncModule,
      imports: [
        McpModule.forRoot({
          name: 'resync-e2e',
          version: '1.0.0',
          eventBus: bus,
          principal: principalFromUserHeader,
          authorizeDelivery: (listener, event) => {
            asked.push(event.type);
            return listener.principal !== 'mallory';
          },
          tasks: { pollIntervalMs: 20 },
        }),
      ],
      providers: [ResyncFeatures],
    };
  }
}

/** The notifications after the acknowledgement, as `method uri`. */
const told = (stream: OpenStream) =>
  stream.messages.slice(1).map((m) => [m.method, m.params?.uri].filter(Boolean).join(' '));

describe.each(ADAPTERS)('resync on an in-process bus (%s)', (adapter) => {
  const bus = new InMemoryEventBus();
  let running: RunningApp;
  const streams: OpenStream[] = [];
  const legacy: LegacyConnection[] = [];

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [ResyncModule.with(bus)] });
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) {
      stream.close();
      await stream.ended;
      // The official schema does not know the tasks extension's notification; everything else must be valid.
      expect(
        stream.problems.filter((problem) => !problem.startsWith('unknown server notification "notifications/tasks"')),
      ).toEqual([]);
    }
    for (const connection of legacy.splice(0)) await connection.client.close();
    await until(() => running.app.get(McpSubscriptionsService).openStreams === 0, 2_000, 'the streams to end');
    asked.length = 0;
  });
  afterAll(async () => {
    (running?.app.getHttpServer() as Server | undefined)?.closeAllConnections();
    await running?.close();
  });

  async function open(id: string, notifications: Record<string, unknown>): Promise<OpenStream> {
    const stream = await listen(running.mcpUrl, id, notifications);
    streams.push(stream);
    return stream;
  }

  async function openAs(user: string, id: string, notifications: Record<string, unknown>): Promise<OpenStream> {
    const stream = await openStream(running.mcpUrl, {
      method: 'subscriptions/listen',
      id,
      params: { notifications },
      headers: { 'x-user': user },
      meta: requestMeta({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } } }),
    });
    streams.push(stream);
    return stream;
  }

  it('tells each listen stream its opted-in lists and subscribed URIs, tagged, and nothing it does not follow', async () => {
    const everything = await open('all', {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['config://app', 'file:///project/dir'],
    });
    const prompts = await open('prompts', { promptsListChanged: true });
    const other = await open('other', { resourceSubscriptions: ['config://other'] });
    for (const stream of [everything, prompts, other]) await stream.nextFrames(1);

    bus.publish({ type: 'resync' });
    // A real update afterwards is the barrier: one stream's notifications arrive in order.
    bus.publish({ type: 'resourceUpdated', uri: 'config://other' });
    await other.nextFrames(3);
    await everything.nextFrames(6);
    await prompts.nextFrames(2);

    expect(told(everything)).toEqual([
      ...LISTS,
      'notifications/resources/updated config://app',
      'notifications/resources/updated file:///project/dir',
    ]);
    expect(told(prompts)).toEqual(['notifications/prompts/list_changed']);
    expect(told(other)).toEqual([
      'notifications/resources/updated config://other',
      'notifications/resources/updated config://other',
    ]);
    for (const [stream, id] of [
      [everything, 'all'],
      [prompts, 'prompts'],
      [other, 'other'],
    ] as const) {
      for (const message of stream.messages.slice(1)) expect(message.params?._meta).toEqual({ [SUB]: id });
    }
  });

  it('reaches every listener without the hook: one the hook refuses everything still hears it', async () => {
    const mallory = await openAs('mallory', 'mallory', {
      toolsListChanged: true,
      resourceSubscriptions: ['config://app'],
    });
    const alice = await openAs('alice', 'alice', { toolsListChanged: true });
    await mallory.nextFrames(1);
    await alice.nextFrames(1);
    bus.publish({ type: 'toolsListChanged' });
    bus.publish({ type: 'resync' });
    await mallory.nextFrames(3);
    await alice.nextFrames(3);
    // The hook refused mallory the real change, but was never asked about the resync.
    expect(told(mallory)).toEqual(['notifications/tools/list_changed', 'notifications/resources/updated config://app']);
    expect(told(alice)).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);
    expect(asked).not.toContain('resync');
    expect(asked).toContain('toolsListChanged');
  });

  it('sends the current state of each watched task, read from the task store', async () => {
    const meta = requestMeta({
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
    });
    const created = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'quick_job' },
      meta,
      headers: { 'x-user': 'alice' },
    });
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    expect(typeof taskId).toBe('string');
    const stream = await openAs('alice', 'tasks', { taskIds: [taskId] });
    const [ack] = await stream.nextFrames(1);
    expect(ack.params?.notifications).toEqual({ taskIds: [taskId] });
    // The task completes at once (maybe before the stream opened): poll it until it did.
    const deadline = Date.now() + 3_000;
    for (let status: string | undefined; status !== 'completed'; ) {
      if (Date.now() > deadline) throw new Error(`task ${taskId} did not complete (status ${status})`);
      const polled = await mcpPost(running.mcpUrl, {
        method: 'tasks/get',
        params: { taskId },
        meta,
        headers: { 'x-user': 'alice', 'mcp-name': taskId },
      });
      status = (polled.json as { result?: { status?: string } }).result?.status;
    }
    const before = stream.messages.length;
    bus.publish({ type: 'resync' });
    await stream.nextFrames(before + 1);
    const resent = stream.messages[before];
    expect(resent.method).toBe('notifications/tasks');
    expect(resent.params).toMatchObject({
      _meta: { [SUB]: 'tasks' },
      taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'quick done' }] },
    });
  });

  it('tells a 2025-11-25 session the list changes of what the server serves and an update of each URI it subscribed to', async () => {
    const seen: string[] = [];
    const connection = await connectLegacyClient(running.mcpUrl, {
      setup: (client) => {
        for (const method of [...LISTS, 'notifications/resources/updated'] as const) {
          client.setNotificationHandler(method, (notification) => {
            seen.push([method, (notification.params as { uri?: string } | undefined)?.uri].filter(Boolean).join(' '));
          });
        }
      },
    });
    legacy.push(connection);
    await connection.recorder.waitForGet(200);
    await connection.client.subscribeResource({ uri: 'config://app' });
    bus.publish({ type: 'resync' });
    await until(() => seen.length >= 4, 2_000, 'the resync on the session stream');
    expect(seen).toEqual([...LISTS, 'notifications/resources/updated config://app']);
    expect(asked).not.toContain('resync');
  });

  it("McpPublisher offers no resync: it is the bus's own signal", () => {
    const publisher = running.app.get(McpPublisher);
    const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(publisher));
    expect(methods.filter((name) => /resync/i.test(name))).toEqual([]);
    // @ts-expect-error no such method
    expect(publisher.resync).toBeUndefined();
  });
});
