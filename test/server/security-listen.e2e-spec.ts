import type { Client } from '@modelcontextprotocol/client';
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpPublisher } from 'nest-mcp';
import { McpSubscriptionsService } from '../../libs/mcp/src/subscriptions/subscriptions.service.js';
import { DeliveryHook, securityListenModule } from '../fixtures/security-listen.fixture.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient } from '../support/legacy-client.factory.js';
import { legacyRecordingFetch } from '../support/legacy-schema.validator.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpHeaders, mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { openStream, type OpenStream, type WireMessage } from '../support/sse-stream.reader.js';
import { until } from '../support/wait.util.js';
import { assertValidServerMessage } from '../support/wire-schema.validator.js';

/**
 * Listen streams and who is listening (issue #13, items 7 and 6): an event published with an audience reaches only
 * the principals it names, an `authorizeDelivery` hook can veto any delivery (and fails closed), a slow reader's
 * pending change notifications are coalesced instead of getting it disconnected, and one principal (or one anonymous
 * address) cannot hold every listen slot. The principal comes from the `x-user` header (fixture); every test runs on
 * both adapters against a real server.
 */

const SUB = 'io.modelcontextprotocol/subscriptionId';
const DIRECTORY = 'users://directory';

/** The JSON-RPC code of the capacity refusals (the same as the other caps: sessions, calls in flight). */
const OVERLOADED = -32603;

/** Serves one app for a describe block, and the services a test needs. */
function useApp(adapter: AdapterName, module: () => Parameters<typeof startApp>[1]['imports']) {
  const holder = {} as { running: RunningApp; subs: McpSubscriptionsService; publisher: McpPublisher };
  beforeAll(async () => {
    holder.running = await startApp(adapter, { imports: module() });
    holder.subs = holder.running.app.get(McpSubscriptionsService);
    holder.publisher = holder.running.app.get(McpPublisher);
  });
  afterAll(async () => {
    // Undici may keep a spare connection after an aborted body; every stream of the block is closed by now.
    (holder.running?.app.getHttpServer() as Server | undefined)?.closeAllConnections();
    await holder.running?.close();
  });
  return holder;
}

/** The listen streams a test opens, closed (and checked for schema problems) after it. */
class Streams {
  private readonly open: OpenStream[] = [];

  /** Opens `subscriptions/listen` as `user` (anonymous when undefined). */
  async listen(
    url: URL,
    user: string | undefined,
    id: string | number,
    notifications: Record<string, unknown>,
  ): Promise<OpenStream> {
    const stream = await openStream(url, {
      method: 'subscriptions/listen',
      id,
      params: { notifications },
      headers: { 'x-user': user },
    });
    this.open.push(stream);
    return stream;
  }

  async closeAll(): Promise<void> {
    const streams = this.open.splice(0);
    for (const stream of streams) stream.close();
    await Promise.all(streams.map((stream) => stream.ended));
    for (const stream of streams) expect(stream.problems).toEqual([]);
  }
}

/** A 200 SSE stream whose first frame acknowledges `id`. */
async function expectOpen(stream: OpenStream, id: string | number): Promise<void> {
  expect(stream.status, stream.raw).toBe(200);
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const [ack] = await stream.nextFrames(1);
  expect(ack.method).toBe('notifications/subscriptions/acknowledged');
  expect(ack.params!._meta![SUB]).toBe(id);
}

/** What a stream received after its acknowledgement, as `method uri`. */
const received = (stream: OpenStream) =>
  stream.messages.slice(1).map((m) => (m.params?.uri ? `${m.method} ${m.params.uri}` : m.method));

/** The server still serves an ordinary call. */
async function expectServing(url: URL): Promise<void> {
  const called = await mcpPost(url, { method: 'tools/call', params: { name: 'ping', arguments: {} } });
  expect(called.status).toBe(200);
  assertValidServerMessage(called.json, 'tools/call');
  expect((called.json as { result: unknown }).result).toMatchObject({ content: [{ type: 'text', text: 'pong' }] });
}

/** A fetch that sends `x-user` on every request, for the official clients. */
const fetchAs =
  (user: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-user', user);
    return fetch(input, { ...init, headers });
  };

describe.each(ADAPTERS)('listen streams and who is listening (%s)', (adapter) => {
  describe('audience and authorizeDelivery', () => {
    const hook = new DeliveryHook();
    const ctx = useApp(adapter, () => [securityListenModule({ authorizeDelivery: hook.authorize })]);
    const streams = new Streams();

    afterEach(async () => {
      await streams.closeAll();
      await until(() => ctx.subs.openStreams === 0, 2_000, 'all subscriptions to end');
      hook.reset();
    });

    it('an event addressed to alice reaches alice only (URI and list changes); one without an audience reaches every subscriber', async () => {
      const filter = { toolsListChanged: true, resourceSubscriptions: [DIRECTORY] };
      const alice = await streams.listen(ctx.running.mcpUrl, 'alice', 'a', filter);
      const bob = await streams.listen(ctx.running.mcpUrl, 'bob', 'b', filter);
      const anonymous = await streams.listen(ctx.running.mcpUrl, undefined, 'n', filter);
      for (const [stream, id] of [
        [alice, 'a'],
        [bob, 'b'],
        [anonymous, 'n'],
      ] as const)
        await expectOpen(stream, id);

      await ctx.publisher.resourceUpdated(`${DIRECTORY}/alice`, { audience: { principals: ['alice'] } });
      await ctx.publisher.toolsListChanged({ audience: { principals: ['bob'] } });
      // Addressed to nobody: an empty audience reaches no one, anonymous listeners included.
      await ctx.publisher.resourceUpdated(`${DIRECTORY}/nobody`, { audience: { principals: [] } });
      await ctx.publisher.resourceUpdated(`${DIRECTORY}/shared`);
      for (const stream of [alice, bob, anonymous]) {
        await stream.waitFor((m) => m.params?.uri === `${DIRECTORY}/shared`, 'the event without an audience');
      }

      // One stream receives events in publish order, so anything not meant for it would have come first.
      expect(received(alice)).toEqual([
        `notifications/resources/updated ${DIRECTORY}/alice`,
        `notifications/resources/updated ${DIRECTORY}/shared`,
      ]);
      expect(received(bob)).toEqual([
        'notifications/tools/list_changed',
        `notifications/resources/updated ${DIRECTORY}/shared`,
      ]);
      expect(received(anonymous)).toEqual([`notifications/resources/updated ${DIRECTORY}/shared`]);
      await expectServing(ctx.running.mcpUrl);
    });

    it('authorizeDelivery sees the listener principal and the event, and vetoes a delivery', async () => {
      hook.decide = (listener, event) =>
        !(listener.principal === 'bob' && event.type === 'resourceUpdated' && event.uri.endsWith('/secret'));
      const alice = await streams.listen(ctx.running.mcpUrl, 'alice', 'a', { resourceSubscriptions: [DIRECTORY] });
      const bob = await streams.listen(ctx.running.mcpUrl, 'bob', 'b', { resourceSubscriptions: [DIRECTORY] });
      await expectOpen(alice, 'a');
      await expectOpen(bob, 'b');

      await ctx.publisher.resourcesListChanged(); // nobody subscribed to it: the hook is not asked
      await ctx.publisher.resourceUpdated(`${DIRECTORY}/secret`);
      await ctx.publisher.resourceUpdated(`${DIRECTORY}/only-alice`, { audience: { principals: ['alice'] } });
      await ctx.publisher.resourceUpdated(`${DIRECTORY}/public`);
      await alice.waitFor((m) => m.params?.uri === `${DIRECTORY}/public`, 'the public update on alice');
      await bob.waitFor((m) => m.params?.uri === `${DIRECTORY}/public`, 'the public update on bob');

      expect(received(alice)).toEqual([
        `notifications/resources/updated ${DIRECTORY}/secret`,
        `notifications/resources/updated ${DIRECTORY}/only-alice`,
        `notifications/resources/updated ${DIRECTORY}/public`,
      ]);
      expect(received(bob)).toEqual([`notifications/resources/updated ${DIRECTORY}/public`]);
      // Asked once per event and subscribed listener the audience admitted, with the principal and the plain event.
      const asked = hook.asked
        .map(({ listener, event }) => `${listener.principal} ${event.type} ${'uri' in event ? event.uri : ''}`)
        .sort();
      expect(asked).toEqual(
        [
          `alice resourceUpdated ${DIRECTORY}/secret`,
          `bob resourceUpdated ${DIRECTORY}/secret`,
          `alice resourceUpdated ${DIRECTORY}/only-alice`,
          `alice resourceUpdated ${DIRECTORY}/public`,
          `bob resourceUpdated ${DIRECTORY}/public`,
        ].sort(),
      );
      expect(hook.asked.find(({ event }) => 'uri' in event && event.uri.endsWith('/only-alice'))!.event).toStrictEqual({
        type: 'resourceUpdated',
        uri: `${DIRECTORY}/only-alice`,
        audience: { principals: ['alice'] },
      });
      await expectServing(ctx.running.mcpUrl);
    });

    it('a hook that throws or answers with a Promise refuses the delivery (fail closed); the stream keeps working', async () => {
      hook.decide = (_listener, event) => {
        if (event.type === 'resourceUpdated' && event.uri.endsWith('/throws'))
          throw new Error('policy store unavailable');
        if (event.type === 'resourceUpdated' && event.uri.endsWith('/async')) return Promise.resolve(true);
        if (event.type === 'resourceUpdated' && event.uri.endsWith('/truthy')) return 'yes';
        return true;
      };
      const alice = await streams.listen(ctx.running.mcpUrl, 'alice', 'a', { resourceSubscriptions: [DIRECTORY] });
      await expectOpen(alice, 'a');
      await ctx.publisher.resourceUpdated(`${DIRECTORY}/throws`);
      await ctx.publisher.resourceUpdated(`${DIRECTORY}/async`);
      await ctx.publisher.resourceUpdated(`${DIRECTORY}/truthy`);
      await ctx.publisher.resourceUpdated(`${DIRECTORY}/fine`);
      await alice.waitFor((m) => m.params?.uri === `${DIRECTORY}/fine`, 'the allowed update');
      expect(received(alice)).toEqual([`notifications/resources/updated ${DIRECTORY}/fine`]);
      expect(ctx.subs.openStreams).toBe(1);
      await expectServing(ctx.running.mcpUrl);
    });

    it('McpPublisher refuses a malformed audience instead of publishing to everyone', async () => {
      await expect(
        ctx.publisher.resourceUpdated(`${DIRECTORY}/x`, { audience: { principals: 'alice' as unknown as string[] } }),
      ).rejects.toThrow(/audience\.principals/);
      await expect(ctx.publisher.toolsListChanged({ audience: {} as never })).rejects.toThrow(/audience\.principals/);
    });

    it('through the official client: each principal hears only what is addressed to it, and both hear the rest', async () => {
      const clients: Client[] = [];
      try {
        const heard: Record<string, string[]> = { alice: [], bob: [] };
        for (const user of ['alice', 'bob'] as const) {
          const client = await connectClient(ctx.running.mcpUrl, { fetch: fetchAs(user) });
          clients.push(client);
          client.setNotificationHandler('notifications/resources/updated', (n) => void heard[user].push(n.params.uri));
          client.setNotificationHandler('notifications/tools/list_changed', () => void heard[user].push('tools'));
          const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: [DIRECTORY] });
          expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [DIRECTORY] });
        }
        await until(() => ctx.subs.openStreams === 2, 2_000, 'both subscriptions to be open');
        await ctx.publisher.resourceUpdated(`${DIRECTORY}/alice`, { audience: { principals: ['alice'] } });
        await ctx.publisher.toolsListChanged({ audience: { principals: ['bob'] } });
        await ctx.publisher.resourceUpdated(`${DIRECTORY}/shared`);
        await until(
          () => heard.alice.includes(`${DIRECTORY}/shared`) && heard.bob.includes(`${DIRECTORY}/shared`),
          2_000,
          'the shared update',
        );
        expect(heard.alice).toEqual([`${DIRECTORY}/alice`, `${DIRECTORY}/shared`]);
        expect(heard.bob).toEqual(['tools', `${DIRECTORY}/shared`]);
      } finally {
        for (const client of clients) await client.close();
      }
      await expectServing(ctx.running.mcpUrl);
    });

    it('2025-11-25 session streams respect the audience and the hook too', async () => {
      hook.decide = (listener, event) =>
        !(
          listener.principal === 'alice' &&
          event.type === 'resourceUpdated' &&
          event.uri === 'file:///project/dir/vetoed'
        );
      const connections: Awaited<ReturnType<typeof connectLegacyClient>>[] = [];
      try {
        const heard: Record<string, string[]> = { alice: [], bob: [] };
        for (const user of ['alice', 'bob'] as const) {
          const connection = await connectLegacyClient(ctx.running.mcpUrl, {
            recorder: legacyRecordingFetch(fetchAs(user)),
          });
          connections.push(connection);
          connection.client.setNotificationHandler(
            'notifications/resources/updated',
            (n) => void heard[user].push(n.params.uri),
          );
          connection.client.setNotificationHandler(
            'notifications/tools/list_changed',
            () => void heard[user].push('tools'),
          );
          await connection.client.subscribeResource({ uri: 'file:///project/dir' });
        }
        const publisher = ctx.publisher;
        await publisher.resourceUpdated('file:///project/dir/a.txt', { audience: { principals: ['alice'] } });
        await publisher.resourceUpdated('file:///project/dir/vetoed');
        await publisher.toolsListChanged({ audience: { principals: ['bob'] } });
        // The barrier: no audience, so both sessions hear it, after everything published before it.
        await publisher.resourceUpdated('file:///project/dir/b.txt');
        await until(
          () => heard.alice.includes('file:///project/dir/b.txt') && heard.bob.includes('file:///project/dir/b.txt'),
          3_000,
          'the barrier',
        );
        expect(heard.alice).toEqual(['file:///project/dir/a.txt', 'file:///project/dir/b.txt']);
        expect(heard.bob).toEqual(['file:///project/dir/vetoed', 'tools', 'file:///project/dir/b.txt']);
      } finally {
        for (const connection of connections) await connection.client.close();
      }
      await expectServing(ctx.running.mcpUrl);
    });
  });

  describe('a listener that stops reading (small queue bounds)', () => {
    const ctx = useApp(adapter, () => [
      securityListenModule({ streaming: { maxQueuedFrames: 8, maxQueuedBytes: 64 * 1024 } }),
    ]);

    afterEach(async () => {
      await until(() => ctx.subs.openStreams === 0, 3_000, 'all subscriptions to end');
    });

    it('keeps one pending update per URI instead of being disconnected, and gets the latest when it reads again', async () => {
      const stalled = await stalledListener(ctx.running.mcpUrl, 'alice', 'stalled', ['big://x']);
      try {
        expect(ctx.subs.openStreams).toBe(1);
        // ~8 KiB per frame (the longest URI McpPublisher takes), the same URI each time: once the socket is full, each
        // new update replaces the waiting one.
        const big = `big://x/${'a'.repeat(8 * 1024 - 16)}`;
        const published = 8_000;
        for (let index = 0; index < published && ctx.subs.openStreams === 1; index++) {
          await ctx.publisher.resourceUpdated(big);
          if (index % 16 === 15) await new Promise((resolve) => setImmediate(resolve));
        }
        // Before the fix the writer gave up on the stream here (its queue held 64 KiB of identical frames).
        expect(ctx.subs.openStreams, 'the stalled listener was disconnected').toBe(1);
        await ctx.publisher.resourceUpdated('big://x/marker');

        const frames = await stalled.readUntil((m) => m.params?.uri === 'big://x/marker', 10_000);
        for (const message of frames) assertValidServerMessage(message);
        const uris = frames.map((m) => m.params?.uri);
        const bigCount = uris.filter((uri) => uri === big).length;
        // What reached the client is what the kernel buffers held plus one coalesced frame: far fewer than published.
        expect(bigCount).toBeGreaterThan(0);
        expect(bigCount).toBeLessThan(published / 4);
        // The marker, published last, arrives last; the big URI's pending update is not lost, it came before it.
        expect(uris.at(-1)).toBe('big://x/marker');
        expect(uris.lastIndexOf(big)).toBeLessThan(uris.length - 1);

        // The stream is still live: a new update arrives at once.
        await ctx.publisher.resourceUpdated('big://x/after');
        await stalled.readUntil((m) => m.params?.uri === 'big://x/after', 3_000);
        expect(ctx.subs.openStreams).toBe(1);
      } finally {
        stalled.close();
      }
      await expectServing(ctx.running.mcpUrl);
    });

    it('a list change is coalesced the same way', async () => {
      const stalled = await stalledListener(ctx.running.mcpUrl, 'bob', 'lists', ['big://y'], {
        toolsListChanged: true,
      });
      try {
        const big = `big://y/${'b'.repeat(8 * 1024 - 16)}`;
        // Fill the socket with one URI, then many list changes: both coalesce, nothing disconnects.
        for (let index = 0; index < 2_000 && ctx.subs.openStreams === 1; index++) {
          await ctx.publisher.resourceUpdated(big);
          await ctx.publisher.toolsListChanged();
          if (index % 16 === 15) await new Promise((resolve) => setImmediate(resolve));
        }
        expect(ctx.subs.openStreams, 'the stalled listener was disconnected').toBe(1);
        await ctx.publisher.resourceUpdated('big://y/marker');
        const frames = await stalled.readUntil((m) => m.params?.uri === 'big://y/marker', 10_000);
        const listChanges = frames.filter((m) => m.method === 'notifications/tools/list_changed').length;
        expect(listChanges).toBeGreaterThan(0);
        expect(listChanges).toBeLessThan(500);
      } finally {
        stalled.close();
      }
      await expectServing(ctx.running.mcpUrl);
    });
  });

  describe('fair shares of listen streams (maxListenStreams 6, 2 per principal, 2 per anonymous address)', () => {
    const ctx = useApp(adapter, () => [
      securityListenModule({ maxListenStreams: 6, maxListenStreamsPerPrincipal: 2, maxListenStreamsPerAddress: 2 }),
    ]);
    const streams = new Streams();

    afterEach(async () => {
      await streams.closeAll();
      await until(() => ctx.subs.openStreams === 0, 2_000, 'all subscriptions to end');
    });

    /** Sends a listen expected to be refused, as `user`, and returns the answer. */
    const refusedListen = (user: string | undefined, id: string) =>
      mcpPost(ctx.running.mcpUrl, {
        method: 'subscriptions/listen',
        id,
        params: { notifications: { toolsListChanged: true } },
        headers: { 'x-user': user },
      });

    it('refuses the third stream of one principal (429), not another principal’s; an anonymous address has its own share; the server cap is 503', async () => {
      const url = ctx.running.mcpUrl;
      const filter = { toolsListChanged: true };
      await expectOpen(await streams.listen(url, 'alice', 'a1', filter), 'a1');
      const secondOfAlice = await streams.listen(url, 'alice', 'a2', filter);
      await expectOpen(secondOfAlice, 'a2');

      expectRefused(await refusedListen('alice', 'a3'), 429, 'maxListenStreamsPerPrincipal');
      // Another principal still opens one while alice is at her share.
      await expectOpen(await streams.listen(url, 'bob', 'b1', filter), 'b1');

      // Anonymous callers are counted by remote address.
      await expectOpen(await streams.listen(url, undefined, 'n1', filter), 'n1');
      await expectOpen(await streams.listen(url, undefined, 'n2', filter), 'n2');
      expectRefused(await refusedListen(undefined, 'n3'), 429, 'maxListenStreamsPerAddress');

      // The sixth stream fills the server; then even a principal with no stream gets the server's 503.
      await expectOpen(await streams.listen(url, 'carol', 'c1', filter), 'c1');
      expect(ctx.subs.openStreams).toBe(6);
      expectRefused(await refusedListen('dave', 'd1'), 503, 'maxListenStreams');
      // Refusals hold no slot, and the server still answers.
      expect(ctx.subs.openStreams).toBe(6);
      await expectServing(url);

      // Closing one of alice's streams gives her share back.
      secondOfAlice.close();
      await until(() => ctx.subs.openStreams === 5, 2_000, 'alice’s second stream to end');
      await expectOpen(await streams.listen(url, 'alice', 'a4', filter), 'a4');
    });
  });
});

/** Checks a capacity refusal: status, `Retry-After`, the JSON-RPC code and data, the option named in the message. */
function expectRefused(answer: RawResponse, status: 429 | 503, option: string): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('retry-after')).toBe('1');
  assertValidServerMessage(answer.json);
  const body = answer.json as { id: unknown; error: { code: number; message: string; data?: unknown } };
  expect(body.id).toBe(answer.sentId);
  expect(body.error.code).toBe(OVERLOADED);
  expect(body.error.data).toEqual({ retryAfterSeconds: 1 });
  expect(body.error.message).toContain(`${option}:`);
  expect(body.error.message).toMatch(/subscriptions.*retry later/i);
}

/**
 * A listen stream read through `node:http` that stops reading after the acknowledgement: the paused response stops
 * the socket, the kernel buffers fill, and the server's writes stop draining. `readUntil` resumes reading.
 */
async function stalledListener(
  url: URL,
  user: string,
  id: string,
  resourceSubscriptions: string[],
  flags: Record<string, boolean> = {},
) {
  const params = { notifications: { ...flags, resourceSubscriptions }, _meta: requestMeta() };
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params });
  const headers = {
    ...mcpHeaders('subscriptions/listen'),
    'x-user': user,
    'content-length': String(Buffer.byteLength(body)),
  };
  const outgoing = httpRequest(url, { method: 'POST', headers, agent: false });
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end(body);
  });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
  response.setEncoding('utf8');
  let buffer = '';
  const frames: WireMessage[] = [];
  let ended = false;
  const onData = (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      buffer = buffer.slice(end + 2);
      if (data) frames.push(JSON.parse(data) as WireMessage);
    }
  };
  response.on('data', onData);
  response.once('close', () => (ended = true));
  await until(() => frames.length > 0 || ended, 3_000, 'the acknowledgement');
  expect(frames[0]?.method).toBe('notifications/subscriptions/acknowledged');
  // From here on nothing is read: the response buffers, then the socket stops reading.
  response.pause();
  let consumed = 1;
  return {
    /** Reads again until a frame matches; returns the frames since the previous read. */
    async readUntil(predicate: (message: WireMessage) => boolean, timeoutMs: number): Promise<WireMessage[]> {
      response.resume();
      await until(() => frames.slice(consumed).some(predicate) || ended, timeoutMs, 'the expected frame');
      expect(ended, 'the server closed the stream').toBe(false);
      const since = frames.slice(consumed);
      consumed = frames.length;
      return since;
    },
    close: () => outgoing.destroy(),
  };
}
