import type { Client } from '@modelcontextprotocol/client';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpPublisher, McpRegistry } from 'nest-mcp';
import { McpSubscriptionsService } from '../../libs/mcp/src/subscriptions/subscriptions.service.js';
import { fullListenModule, RecordingEventBus, toolsOnlyListenModule } from '../fixtures/listen.fixture.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpHeaders, mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { listen, openStream, type OpenStream, type WireMessage } from '../support/sse-stream.reader.js';
import { sleep, until } from '../support/wait.util.js';
import { assertMatchesDef, assertValidServerMessage } from '../support/wire-schema.validator.js';

/**
 * `subscriptions/listen` over real HTTP (spec 2026-07-28: basic/patterns/subscriptions; teardown also
 * basic/patterns/cancellation; keep-alives: basic/transports/streamable-http, "Receiving Messages"): the
 * acknowledgement, the filter, tagging, publishing (McpPublisher, runtime registration, a custom event bus),
 * keep-alives, teardown by either side, the stream cap, malformed filters, and a listener that never reads. Every frame
 * is checked against the official schema as it arrives.
 */

const SUB = 'io.modelcontextprotocol/subscriptionId';
const TASKS = 'io.modelcontextprotocol/tasks';

const ALL_FLAGS = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };

/** Tracks the listen streams a test opens, so that `afterEach` can check and close them. */
class StreamBook {
  private readonly open: Array<{ stream: OpenStream; id: string | number }> = [];

  async listen(url: URL, id: string | number, notifications: Record<string, unknown>, meta?: Record<string, unknown>) {
    const stream = await listen(url, id, notifications, meta);
    this.open.push({ stream, id });
    return stream;
  }

  /** Every frame valid, every notification tagged with its own subscription id; then closes all. */
  async closeAll(): Promise<void> {
    const entries = this.open.splice(0);
    for (const { stream } of entries) stream.close();
    await Promise.all(entries.map(({ stream }) => stream.ended));
    for (const { stream, id } of entries) {
      expect(stream.problems).toEqual([]);
      expectTagged(stream.messages, id);
    }
  }
}

/**
 * Every notification on a listen stream carries the subscription id, with the id's JSON type (spec 2026-07-28:
 * basic/patterns/subscriptions, "Receiving Notifications").
 */
function expectTagged(messages: readonly WireMessage[], id: string | number): void {
  for (const message of messages) {
    const meta = (message.method ? message.params?._meta : message.result?._meta) as
      | Record<string, unknown>
      | undefined;
    if (message.error) continue;
    expect(meta, JSON.stringify(message)).toBeDefined();
    expect(meta![SUB], JSON.stringify(message)).toBe(id);
  }
}

/** Waits for the acknowledgement and checks it is the first frame, with the id and the honoured subset. */
async function expectAck(stream: OpenStream, id: string | number, honoured: Record<string, unknown>): Promise<void> {
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(stream.headers.get('x-accel-buffering')).toBe('no');
  const [ack] = await stream.nextFrames(1);
  expect(ack.method).toBe('notifications/subscriptions/acknowledged');
  expect(ack).not.toHaveProperty('id');
  expect(ack.params!._meta![SUB]).toBe(id);
  expect(typeof ack.params!._meta![SUB]).toBe(typeof id);
  expect(ack.params!.notifications).toStrictEqual(honoured);
}

/** The methods of the notifications after the acknowledgement. */
const methodsAfterAck = (stream: OpenStream) => stream.messages.slice(1).map((message) => message.method ?? 'response');

/** Checks a JSON error answer (before any streaming) and returns it. */
function expectJsonError(response: RawResponse, status: number, code: number) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  assertValidServerMessage(response.json);
  const body = response.json as { id: unknown; error: { code: number; message: string; data?: unknown } };
  expect(body.id).toBe(response.sentId);
  expect(body.error.code).toBe(code);
  return body.error;
}

/**
 * Sends `subscriptions/listen` with a filter expected to be rejected. Reads only the headers first: if the server
 * opened a stream instead, the stream is closed at once (so a test fails instead of hanging) and a synthetic
 * response describing the stream is returned.
 */
async function listenOrError(url: URL, notifications: unknown): Promise<RawResponse> {
  const id = `bad-${JSON.stringify(notifications)}`;
  const stream = await openStream(url, { method: 'subscriptions/listen', id, params: { notifications } });
  if (stream.headers.get('content-type')?.startsWith('text/event-stream')) {
    await stream.nextFrames(1).catch(() => undefined);
    stream.close();
    await stream.ended;
    return { status: stream.status, headers: stream.headers, text: stream.raw, json: stream.messages[0], sentId: id };
  }
  await stream.ended;
  return { status: stream.status, headers: stream.headers, text: stream.raw, json: JSON.parse(stream.raw), sentId: id };
}

/** Serves one app for a describe block. */
function useApp(adapter: AdapterName, module: () => Parameters<typeof startApp>[1]['imports']) {
  const holder = {} as {
    running: RunningApp;
    subs: McpSubscriptionsService;
    publisher: McpPublisher;
    registry: McpRegistry;
  };
  beforeAll(async () => {
    holder.running = await startApp(adapter, { imports: module() });
    holder.subs = holder.running.app.get(McpSubscriptionsService);
    holder.publisher = holder.running.app.get(McpPublisher);
    holder.registry = holder.running.app.get(McpRegistry);
  });
  afterAll(async () => {
    // Node 20's fetch (undici) opens a spare, request-less connection after a response body is aborted, and
    // `server.close()` waits for it (Express ~3 s, Fastify indefinitely). Every stream of the block is closed by
    // now (afterEach), so dropping leftover connections hides nothing of the server's own teardown.
    (holder.running?.app.getHttpServer() as Server | undefined)?.closeAllConnections();
    await holder.running?.close();
  });
  return holder;
}

describe.each(ADAPTERS)('subscriptions/listen (%s)', (adapter) => {
  const book = new StreamBook();

  describe('on a server with tools, prompts and resources', () => {
    const ctx = useApp(adapter, () => [fullListenModule({ keepAliveMs: 50 })]);

    afterEach(async () => {
      await book.closeAll();
      // Teardown by the client ends every subscription on the server: no subscription state outlives its stream
      // (spec 2026-07-28: basic/patterns/subscriptions, "Graceful Closure").
      await until(() => ctx.subs.openStreams === 0, 2_000, 'all subscriptions to end');
    });

    it('answers with an SSE stream (X-Accel-Buffering: no) whose first frame acknowledges, tagged with a numeric id', async () => {
      const stream = await book.listen(ctx.running.mcpUrl, 7, {
        ...ALL_FLAGS,
        resourceSubscriptions: ['config://app'],
      });
      await expectAck(stream, 7, { ...ALL_FLAGS, resourceSubscriptions: ['config://app'] });
      expect(stream.raw.startsWith('event: message\ndata: ') || stream.raw.startsWith('data: ')).toBe(true);
      expect(ctx.subs.openStreams).toBe(1);
    });

    it.each([
      ['a string id', 'sub-abc'],
      ['a numeric-looking string id (stays a string)', '7'],
      ['id 0 (stays the number 0)', 0],
    ])('keeps the JSON type of %s as the subscription id', async (_label, id) => {
      const stream = await book.listen(ctx.running.mcpUrl, id, { toolsListChanged: true });
      await expectAck(stream, id, { toolsListChanged: true });
      await ctx.publisher.toolsListChanged();
      const changed = await stream.waitFor(
        (m) => m.method === 'notifications/tools/list_changed',
        'tools/list_changed',
      );
      expect(changed.params).toStrictEqual({ _meta: { [SUB]: id } });
    });

    it('acknowledges only the flags that were requested as true (false and omitted are not subscribed)', async () => {
      const stream = await book.listen(ctx.running.mcpUrl, 'flags', {
        toolsListChanged: true,
        promptsListChanged: false,
      });
      await expectAck(stream, 'flags', { toolsListChanged: true });
      await ctx.publisher.promptsListChanged();
      await ctx.publisher.resourcesListChanged();
      await ctx.publisher.toolsListChanged();
      await stream.waitFor((m) => m.method === 'notifications/tools/list_changed', 'tools/list_changed');
      expect(methodsAfterAck(stream)).toEqual(['notifications/tools/list_changed']);
    });

    it('an empty filter is acknowledged as empty and receives nothing', async () => {
      const quiet = await book.listen(ctx.running.mcpUrl, 'quiet', {});
      const marker = await book.listen(ctx.running.mcpUrl, 'marker', {
        ...ALL_FLAGS,
        resourceSubscriptions: ['config://app'],
      });
      await expectAck(quiet, 'quiet', {});
      await expectAck(marker, 'marker', { ...ALL_FLAGS, resourceSubscriptions: ['config://app'] });
      await ctx.publisher.toolsListChanged();
      await ctx.publisher.promptsListChanged();
      await ctx.publisher.resourcesListChanged();
      await ctx.publisher.resourceUpdated('config://app');
      await marker.nextFrames(5);
      // The marker stream got all four; the quiet one (same process, same bus) got none of them.
      await sleep(20);
      expect(quiet.messages).toHaveLength(1);
    });

    // spec 2026-07-28: basic/patterns/subscriptions, "Opening a Stream"
    it('honours the filter: a prompts-only stream never receives tools or resources changes', async () => {
      const stream = await book.listen(ctx.running.mcpUrl, 11, { promptsListChanged: true });
      await expectAck(stream, 11, { promptsListChanged: true });
      await ctx.publisher.toolsListChanged();
      await ctx.publisher.resourcesListChanged();
      await ctx.publisher.resourceUpdated('config://app');
      await ctx.publisher.promptsListChanged();
      await stream.waitFor((m) => m.method === 'notifications/prompts/list_changed', 'prompts/list_changed');
      // Events are delivered in publish order on one stream, so anything unwanted would have come first.
      expect(methodsAfterAck(stream)).toEqual(['notifications/prompts/list_changed']);
      expect(stream.messages[1].params).toStrictEqual({ _meta: { [SUB]: 11 } });
    });

    it('McpPublisher reaches matching streams, resourceUpdated also for sub-resources of a subscribed URI', async () => {
      const stream = await book.listen(ctx.running.mcpUrl, 'all', {
        ...ALL_FLAGS,
        resourceSubscriptions: ['file:///project/dir'],
      });
      await expectAck(stream, 'all', { ...ALL_FLAGS, resourceSubscriptions: ['file:///project/dir'] });
      await ctx.publisher.toolsListChanged();
      await ctx.publisher.promptsListChanged();
      await ctx.publisher.resourcesListChanged();
      await ctx.publisher.resourceUpdated('file:///project/dir');
      await ctx.publisher.resourceUpdated('file:///project/dir/a.txt');
      await ctx.publisher.resourceUpdated('config://app'); // not subscribed
      await ctx.publisher.resourceUpdated('file:///project/directory'); // shares a prefix, but is no sub-resource
      await ctx.publisher.resourceUpdated('file:///project'); // a parent is not covered by a child subscription
      await ctx.publisher.resourceUpdated('file:///project/dir/sub/b.txt');
      await stream.waitFor((m) => m.params?.uri === 'file:///project/dir/sub/b.txt', 'the last update');
      expect(stream.messages.slice(1).map((m) => [m.method, m.params?.uri])).toEqual([
        ['notifications/tools/list_changed', undefined],
        ['notifications/prompts/list_changed', undefined],
        ['notifications/resources/list_changed', undefined],
        ['notifications/resources/updated', 'file:///project/dir'],
        ['notifications/resources/updated', 'file:///project/dir/a.txt'],
        ['notifications/resources/updated', 'file:///project/dir/sub/b.txt'],
      ]);
      for (const message of stream.messages.slice(1)) expect(message.params!._meta).toStrictEqual({ [SUB]: 'all' });
    });

    it('fans one event out to every matching stream, each tagged with its own id', async () => {
      const a = await book.listen(ctx.running.mcpUrl, 1, { toolsListChanged: true });
      const b = await book.listen(ctx.running.mcpUrl, 2, { toolsListChanged: true, promptsListChanged: true });
      const c = await book.listen(ctx.running.mcpUrl, 'one', { resourcesListChanged: true });
      await expectAck(a, 1, { toolsListChanged: true });
      await expectAck(b, 2, { toolsListChanged: true, promptsListChanged: true });
      await expectAck(c, 'one', { resourcesListChanged: true });
      await ctx.publisher.toolsListChanged();
      await ctx.publisher.resourcesListChanged();
      const [, fromA] = await a.nextFrames(2);
      const [, fromB] = await b.nextFrames(2);
      const [, fromC] = await c.nextFrames(2);
      expect(fromA.params!._meta![SUB]).toBe(1);
      expect(fromB.params!._meta![SUB]).toBe(2);
      expect(fromC).toMatchObject({
        method: 'notifications/resources/list_changed',
        params: { _meta: { [SUB]: 'one' } },
      });
    });

    it('runtime registerTool makes the tool listable and callable and publishes tools/list_changed; removeTool likewise', async () => {
      const stream = await book.listen(ctx.running.mcpUrl, 'rt', { toolsListChanged: true, promptsListChanged: true });
      await expectAck(stream, 'rt', { toolsListChanged: true, promptsListChanged: true });
      const url = ctx.running.mcpUrl;

      ctx.registry.registerTool<{ text: string }>(
        {
          name: 'runtime_echo',
          description: 'Echoes at run time',
          input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        },
        ({ text }) => `echo: ${text}`,
      );
      await stream.waitFor((m) => m.method === 'notifications/tools/list_changed', 'tools/list_changed after register');
      const listed = await mcpPost(url, { method: 'tools/list' });
      assertValidServerMessage(listed.json, 'tools/list');
      const names = (listed.json as { result: { tools: Array<{ name: string }> } }).result.tools.map(
        (tool) => tool.name,
      );
      expect(names).toContain('runtime_echo');
      const called = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'runtime_echo', arguments: { text: 'hi' } },
      });
      assertValidServerMessage(called.json, 'tools/call');
      expect((called.json as { result: unknown }).result).toMatchObject({
        content: [{ type: 'text', text: 'echo: hi' }],
      });

      expect(ctx.registry.removeTool('runtime_echo')).toBe(true);
      await stream.until(() => stream.messages.length === 3, 2_000, 'tools/list_changed after remove');
      expect(methodsAfterAck(stream)).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);
      const relisted = await mcpPost(url, { method: 'tools/list' });
      const renamed = (relisted.json as { result: { tools: Array<{ name: string }> } }).result.tools.map(
        (tool) => tool.name,
      );
      expect(renamed).not.toContain('runtime_echo');
      const gone = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'runtime_echo', arguments: { text: 'hi' } },
      });
      assertValidServerMessage(gone.json);
      expect((gone.json as { error: { code: number } }).error.code).toBe(-32602);
      // Removing what is not there changes nothing and publishes nothing.
      expect(ctx.registry.removeTool('runtime_echo')).toBe(false);
      await ctx.publisher.promptsListChanged();
      await stream.waitFor((m) => m.method === 'notifications/prompts/list_changed', 'marker');
      expect(methodsAfterAck(stream)).toEqual([
        'notifications/tools/list_changed',
        'notifications/tools/list_changed',
        'notifications/prompts/list_changed',
      ]);
    });

    it('sends keep-alive comments (small keepAliveMs), never before the acknowledgement', async () => {
      const stream = await book.listen(ctx.running.mcpUrl, 'ka', { toolsListChanged: true });
      await expectAck(stream, 'ka', { toolsListChanged: true });
      await stream.until(() => stream.comments >= 3, 2_000, 'three keep-alive comments');
      const firstComment = stream.raw.search(/(^|\n):/);
      expect(firstComment).toBeGreaterThan(stream.raw.indexOf('data: '));
      expect(stream.raw).toMatch(/\n\n:[^\n]*\n\n/);
      // Keep-alives are comments only: no data frame besides the acknowledgement.
      expect(stream.messages).toHaveLength(1);
      // …and the stream still delivers after them.
      await ctx.publisher.toolsListChanged();
      await stream.nextFrames(2);
    });

    // spec 2026-07-28: basic/transports/streamable-http, "Receiving Messages", and server/utilities/logging,
    // "Per-request log level"
    it('never puts progress or log notifications on a listen stream, even when the listen asked for them', async () => {
      const stream = await book.listen(
        ctx.running.mcpUrl,
        'noisy',
        { toolsListChanged: true },
        requestMeta({
          progressToken: 'p1',
          'io.modelcontextprotocol/logLevel': 'debug',
        }),
      );
      await expectAck(stream, 'noisy', { toolsListChanged: true });
      await ctx.publisher.toolsListChanged();
      await stream.nextFrames(2);
      expect(stream.messages.map((m) => m.method)).toEqual([
        'notifications/subscriptions/acknowledged',
        'notifications/tools/list_changed',
      ]);
    });

    it('the client closing the stream ends the subscription on the server; publishing afterwards reaches nobody', async () => {
      const stream = await book.listen(ctx.running.mcpUrl, 'bye', { toolsListChanged: true });
      const other = await book.listen(ctx.running.mcpUrl, 'stay', { toolsListChanged: true });
      await expectAck(stream, 'bye', { toolsListChanged: true });
      await expectAck(other, 'stay', { toolsListChanged: true });
      expect(ctx.subs.openStreams).toBe(2);
      stream.close();
      await until(() => ctx.subs.openStreams === 1, 2_000, 'the closed subscription to end');
      await ctx.publisher.toolsListChanged();
      await other.nextFrames(2);
      expect(stream.messages).toHaveLength(1);
      expect(stream.endedByServer).toBe(false);
    });

    it('rejects malformed filters with -32602 (observed HTTP status: 200) and opens nothing', async () => {
      const cases: unknown[] = [
        5,
        'all',
        [],
        { resourceSubscriptions: 'x' },
        { resourceSubscriptions: ['not a uri'] },
        { resourceSubscriptions: [42] },
        { toolsListChanged: 'yes' },
        { promptsListChanged: 1 },
        { resourcesListChanged: null },
      ];
      for (const notifications of cases) {
        const response = await listenOrError(ctx.running.mcpUrl, notifications);
        // spec 2026-07-28 (basic/transports/streamable-http) gives a status for -32602 only when a _meta field is
        // missing; nest-mcp answers 200 (docs/http-transport.md, "Statuses and error codes").
        const error = expectJsonError(response, 200, -32602);
        expect(error.message, JSON.stringify(notifications)).toMatch(/notifications/);
      }
      expect(ctx.subs.openStreams).toBe(0);
    });

    it('rejects notifications: null with -32602 like any other non-object filter', async () => {
      // SubscriptionsListenRequestParams.notifications is a SubscriptionFilter object; null is not one.
      const response = await listenOrError(ctx.running.mcpUrl, null);
      expectJsonError(response, 200, -32602);
      expect(ctx.subs.openStreams).toBe(0);
    });

    it('two clients may use the same id: their subscriptions are independent (ids are only unique per client)', async () => {
      const a = await book.listen(ctx.running.mcpUrl, 1, { toolsListChanged: true });
      const b = await book.listen(ctx.running.mcpUrl, 1, { toolsListChanged: true, promptsListChanged: true });
      await expectAck(a, 1, { toolsListChanged: true });
      await expectAck(b, 1, { toolsListChanged: true, promptsListChanged: true });
      expect(ctx.subs.openStreams).toBe(2);
      a.close();
      await until(() => ctx.subs.openStreams === 1, 2_000, 'the first stream to end');
      await ctx.publisher.promptsListChanged();
      await b.waitFor(
        (m) => m.method === 'notifications/prompts/list_changed',
        'prompts/list_changed on the second stream',
      );
      expect(a.messages).toHaveLength(1);
    });

    it('a listen from a client that accepts only application/json is refused at once (it can only be served as SSE)', async () => {
      const controller = new AbortController();
      const params = { notifications: { toolsListChanged: true }, _meta: requestMeta() };
      const pending = fetch(ctx.running.mcpUrl, {
        method: 'POST',
        headers: { ...mcpHeaders('subscriptions/listen'), accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'json-only', method: 'subscriptions/listen', params }),
        signal: controller.signal,
      });
      pending.catch(() => undefined);
      const answered = await Promise.race([pending.then((response) => response), sleep(1_000).then(() => undefined)]);
      const held = ctx.subs.openStreams;
      const body = answered ? await answered.json() : undefined;
      controller.abort();
      expect(answered, `no answer within 1 s; open subscriptions: ${held}`).toBeDefined();
      expect(answered!.status).toBe(406);
      assertValidServerMessage(body);
      expect(body.id).toBe('json-only');
      expect(held).toBe(0);
    });

    // ext-tasks spec 2026-07-28: tasks, "Task Status Notifications"
    it('taskIds without the tasks extension capability → 400 / -32021 with requiredCapabilities', async () => {
      const response = await mcpPost(ctx.running.mcpUrl, {
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true, taskIds: ['task-1'] } },
      });
      const error = expectJsonError(response, 400, -32021);
      expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
      expect(ctx.subs.openStreams).toBe(0);
    });

    it('taskIds with the tasks extension declared is accepted; the ack leaves out what this server cannot honour', async () => {
      const meta = requestMeta({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } });
      const stream = await book.listen(
        ctx.running.mcpUrl,
        'tasks',
        { toolsListChanged: true, taskIds: ['task-1'] },
        meta,
      );
      await expectAck(stream, 'tasks', { toolsListChanged: true });
    });
  });

  describe('on a server with tools only', () => {
    const ctx = useApp(adapter, () => [toolsOnlyListenModule()]);

    afterEach(async () => {
      await book.closeAll();
      await until(() => ctx.subs.openStreams === 0, 2_000, 'all subscriptions to end');
    });

    // spec 2026-07-28: basic/patterns/subscriptions, "Acknowledgment"
    it('drops promptsListChanged, resourcesListChanged and resourceSubscriptions from the acknowledgement', async () => {
      const stream = await book.listen(ctx.running.mcpUrl, 21, {
        ...ALL_FLAGS,
        resourceSubscriptions: ['config://app'],
      });
      await expectAck(stream, 21, { toolsListChanged: true });
      // What was dropped is not delivered either.
      await ctx.publisher.promptsListChanged();
      await ctx.publisher.resourcesListChanged();
      await ctx.publisher.resourceUpdated('config://app');
      await ctx.publisher.toolsListChanged();
      await stream.nextFrames(2);
      expect(methodsAfterAck(stream)).toEqual(['notifications/tools/list_changed']);
    });

    it('a prompts-only filter is acknowledged as empty', async () => {
      const stream = await book.listen(ctx.running.mcpUrl, 'p', { promptsListChanged: true });
      await expectAck(stream, 'p', {});
    });
  });

  describe('with a custom eventBus option', () => {
    const bus = new RecordingEventBus();
    const ctx = useApp(adapter, () => [fullListenModule({ eventBus: bus })]);

    afterEach(async () => {
      await book.closeAll();
      await until(() => ctx.subs.openStreams === 0, 2_000, 'all subscriptions to end');
    });

    it('McpPublisher and runtime registration publish on the given bus, and streams receive what it fans out', async () => {
      bus.published.length = 0;
      const baseline = bus.subscriberCount;
      const stream = await book.listen(ctx.running.mcpUrl, 'bus', {
        ...ALL_FLAGS,
        resourceSubscriptions: ['config://app'],
      });
      await expectAck(stream, 'bus', { ...ALL_FLAGS, resourceSubscriptions: ['config://app'] });
      expect(bus.subscriberCount).toBe(baseline + 1);

      await ctx.publisher.resourceUpdated('config://app');
      ctx.registry.registerPrompt({ name: 'bus_prompt' }, () => 'hello');
      // As if another replica had published: the event only exists on the bus.
      await bus.publish({ type: 'toolsListChanged' });
      await stream.nextFrames(4);

      expect(bus.published).toEqual([
        { type: 'resourceUpdated', uri: 'config://app' },
        { type: 'promptsListChanged' },
        { type: 'toolsListChanged' },
      ]);
      expect(stream.messages.slice(1).map((m) => m.method)).toEqual([
        'notifications/resources/updated',
        'notifications/prompts/list_changed',
        'notifications/tools/list_changed',
      ]);
      expect(ctx.registry.removePrompt('bus_prompt')).toBe(true);
    });

    it('each stream subscribes to the bus while open and unsubscribes when it ends', async () => {
      // Other parts of the library may hold a bus subscription of their own: count relative to them.
      const baseline = bus.subscriberCount;
      const stream = await book.listen(ctx.running.mcpUrl, 'sub', { toolsListChanged: true });
      const second = await book.listen(ctx.running.mcpUrl, 'sub2', { toolsListChanged: true });
      await expectAck(stream, 'sub', { toolsListChanged: true });
      await expectAck(second, 'sub2', { toolsListChanged: true });
      expect(bus.subscriberCount).toBe(baseline + 2);
      stream.close();
      second.close();
      await until(() => bus.subscriberCount === baseline, 2_000, 'the streams to unsubscribe from the bus');
      expect(ctx.subs.openStreams).toBe(0);
    });
  });

  describe('with maxListenStreams: 2', () => {
    const ctx = useApp(adapter, () => [fullListenModule({ maxListenStreams: 2 })]);

    afterEach(async () => {
      await book.closeAll();
      await until(() => ctx.subs.openStreams === 0, 2_000, 'all subscriptions to end');
    });

    it('refuses a third stream with HTTP 503 and a JSON-RPC error; a slot freed by a client is reusable', async () => {
      const first = await book.listen(ctx.running.mcpUrl, 1, { toolsListChanged: true });
      const second = await book.listen(ctx.running.mcpUrl, 2, { toolsListChanged: true });
      await expectAck(first, 1, { toolsListChanged: true });
      await expectAck(second, 2, { toolsListChanged: true });

      const third = await mcpPost(ctx.running.mcpUrl, {
        method: 'subscriptions/listen',
        id: 3,
        params: { notifications: { toolsListChanged: true } },
      });
      const error = expectJsonError(third, 503, -32603);
      expect(error.message).toMatch(/subscriptions/i);
      // Other requests are still served.
      const discover = await mcpPost(ctx.running.mcpUrl, { method: 'server/discover' });
      assertValidServerMessage(discover.json, 'server/discover');

      first.close();
      await until(() => ctx.subs.openStreams === 1, 2_000, 'the first stream to end');
      const again = await book.listen(ctx.running.mcpUrl, 4, { toolsListChanged: true });
      await expectAck(again, 4, { toolsListChanged: true });
    });
  });

  describe('with small streaming bounds, a listener that never reads', () => {
    const ctx = useApp(adapter, () => [
      fullListenModule({ streaming: { maxQueuedFrames: 4, maxQueuedBytes: 16 * 1024 } }),
    ]);

    afterEach(async () => {
      await book.closeAll();
      await until(() => ctx.subs.openStreams === 0, 2_000, 'all subscriptions to end');
    });

    it('is disconnected once its queue overflows, and the server keeps serving everyone else', async () => {
      const healthy = await book.listen(ctx.running.mcpUrl, 'healthy', { toolsListChanged: true });
      await expectAck(healthy, 'healthy', { toolsListChanged: true });

      const stalled = await stalledListener(ctx.running.mcpUrl, 'stalled', ['big://x']);
      try {
        expect(ctx.subs.openStreams).toBe(2);
        // ~8 KB per event (the longest URI McpPublisher takes): the kernel buffers fill, then the writer's queue, then
        // the writer gives up on the stream.
        const payload = 'a'.repeat(8 * 1024 - 32);
        let published = 0;
        while (ctx.subs.openStreams === 2 && published < 16_000) {
          for (let i = 0; i < 16; i++) await ctx.publisher.resourceUpdated(`big://x/${published++}/${payload}`);
          await new Promise((resolve) => setImmediate(resolve));
        }
        await until(() => ctx.subs.openStreams === 1, 2_000, 'the stalled listener to be dropped');
        expect(published).toBeGreaterThan(4);
        // The server destroyed the stalled connection (it is not waiting for it).
        await until(() => stalled.destroyedByPeer(), 3_000, 'the stalled socket to be closed by the server');
      } finally {
        stalled.socket.destroy();
      }

      // Everyone else is still served: the healthy stream, and new requests.
      await ctx.publisher.toolsListChanged();
      await healthy.waitFor(
        (m) => m.method === 'notifications/tools/list_changed',
        'tools/list_changed on the healthy stream',
      );
      expect(methodsAfterAck(healthy)).toEqual(['notifications/tools/list_changed']);
      const called = await mcpPost(ctx.running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'ping', arguments: {} },
      });
      assertValidServerMessage(called.json, 'tools/call');
      expect((called.json as { result: unknown }).result).toMatchObject({ content: [{ type: 'text', text: 'pong' }] });
      const fresh = await book.listen(ctx.running.mcpUrl, 'fresh', { resourceSubscriptions: ['big://x'] });
      await expectAck(fresh, 'fresh', { resourceSubscriptions: ['big://x'] });
    });
  });

  describe('server shutdown', () => {
    // spec 2026-07-28: basic/patterns/subscriptions, "Graceful Closure"
    it('app.close() ends open streams with the closing result, then the connection closes', async () => {
      const running = await startApp(adapter, { imports: [fullListenModule()] });
      let closed = false;
      try {
        const numeric = await listen(running.mcpUrl, 41, { toolsListChanged: true });
        const text = await listen(running.mcpUrl, 'closing', { promptsListChanged: true });
        await expectAck(numeric, 41, { toolsListChanged: true });
        await expectAck(text, 'closing', { promptsListChanged: true });
        const subs = running.app.get(McpSubscriptionsService);
        expect(subs.openStreams).toBe(2);

        await running.close();
        closed = true;
        await Promise.all([numeric.ended, text.ended]);
        for (const [stream, id] of [
          [numeric, 41],
          [text, 'closing'],
        ] as const) {
          expect(stream.endedByServer).toBe(true);
          expect(stream.problems).toEqual([]);
          expect(stream.messages).toHaveLength(2);
          const last = stream.messages[1];
          assertValidServerMessage(last, 'subscriptions/listen');
          assertMatchesDef('SubscriptionsListenResultResponse', last);
          expect(last.id).toBe(id);
          expect(last.result).toEqual({
            resultType: 'complete',
            _meta: { [SUB]: id, 'io.modelcontextprotocol/serverInfo': { name: 'listen-full', version: '1.0.0' } },
          });
          expectTagged(stream.messages, id);
        }
        expect(subs.openStreams).toBe(0);
      } finally {
        if (!closed) await running.close();
      }
    });

    it('the official client sees the shutdown as graceful', async () => {
      const running = await startApp(adapter, { imports: [fullListenModule()] });
      let closed = false;
      let client: Client | undefined;
      try {
        client = await connectClient(running.mcpUrl);
        const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
        expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true });
        await running.close();
        closed = true;
        await expect(subscription.closed).resolves.toBe('graceful');
      } finally {
        await client?.close().catch(() => undefined);
        if (!closed) await running.close();
      }
    });
  });

  describe('through the official client', () => {
    const ctx = useApp(adapter, () => [fullListenModule()]);
    let client: Client;

    beforeAll(async () => {
      client = await connectClient(ctx.running.mcpUrl);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('listen() gets the honoured filter, change notifications reach the handlers, close() ends it on the server', async () => {
      const seen: string[] = [];
      client.setNotificationHandler('notifications/tools/list_changed', () => void seen.push('tools'));
      client.setNotificationHandler(
        'notifications/resources/updated',
        (n) => void seen.push(`updated ${n.params.uri}`),
      );
      const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['config://app'] });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['config://app'] });
      expect(ctx.subs.openStreams).toBe(1);

      // A second official client whose filter matches neither change hears nothing of them.
      const other = await connectClient(ctx.running.mcpUrl);
      const otherSeen: string[] = [];
      other.setNotificationHandler('notifications/tools/list_changed', () => void otherSeen.push('tools'));
      other.setNotificationHandler(
        'notifications/resources/updated',
        (n) => void otherSeen.push(`updated ${n.params.uri}`),
      );
      const otherSubscription = await other.listen({
        promptsListChanged: true,
        resourceSubscriptions: ['config://other'],
      });
      expect(otherSubscription.honoredFilter).toEqual({
        promptsListChanged: true,
        resourceSubscriptions: ['config://other'],
      });

      ctx.registry.registerTool({ name: 'client_seen' }, () => 'ok');
      await ctx.publisher.resourceUpdated('config://app');
      await until(() => seen.length === 2, 2_000, 'both notifications to reach the client');
      expect(seen).toEqual(['tools', 'updated config://app']);
      await ctx.publisher.resourceUpdated('config://other');
      await until(() => otherSeen.length === 1, 2_000, 'the other client to hear its own resource');
      expect(otherSeen).toEqual(['updated config://other']);
      await otherSubscription.close();
      await other.close();

      await subscription.close();
      await expect(subscription.closed).resolves.toBe('local');
      await until(() => ctx.subs.openStreams === 0, 2_000, 'the subscriptions to end on the server');
      ctx.registry.removeTool('client_seen');
    });
  });
});

/** A raw TCP client that opens a listen stream, reads up to the acknowledgement, then never reads again. */
async function stalledListener(url: URL, id: string, resourceSubscriptions: string[]) {
  const params = { notifications: { resourceSubscriptions }, _meta: requestMeta() };
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params });
  const headers = {
    ...mcpHeaders('subscriptions/listen'),
    host: url.host,
    'content-length': String(Buffer.byteLength(body)),
  };
  const socket: Socket = connect(Number(url.port), url.hostname);
  let received = '';
  let peerClosed = false;
  socket.on('end', () => (peerClosed = true));
  socket.on('close', () => (peerClosed = true));
  socket.on('error', () => (peerClosed = true));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no acknowledgement on the raw socket: ${received}`)), 3_000);
    socket.on('data', function onData(chunk: Buffer) {
      received += chunk.toString('utf8');
      if (received.includes('notifications/subscriptions/acknowledged')) {
        clearTimeout(timer);
        socket.off('data', onData);
        // From here on the client never reads: the kernel buffers fill and the server's writes stop draining.
        socket.pause();
        resolve();
      }
    });
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.write(`POST ${url.pathname} HTTP/1.1\r\n${head}\r\n\r\n${body}`);
  });
  expect(received).toMatch(/^HTTP\/1\.1 200/);
  expect(received.toLowerCase()).toContain('x-accel-buffering: no');
  return {
    socket,
    /** Whether the server closed or reset the connection (read without consuming the stalled data). */
    destroyedByPeer: () => {
      if (!peerClosed && socket.isPaused()) {
        // A paused socket does not surface 'end': once the server is known to be done with it, drain and discard.
        socket.on('data', () => undefined);
        socket.resume();
      }
      return peerClosed;
    },
  };
}
