import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpPublisher, McpRegistry } from 'nest-mcp';
import { legacyModule } from '../fixtures/legacy.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import {
  connectLegacyClient,
  legacyPost,
  legacyVerb,
  openLegacyGet,
  rawInitialize,
  type LegacyConnection,
  type LegacyRawResponse,
  type LegacyStream,
} from '../support/legacy-client.factory.js';
import { assertAllLegacyValid } from '../support/legacy-schema.validator.js';
import type { WireMessage } from '../support/wire-response.util.js';
import { sleep, until } from '../support/wait.util.js';
import { mcpPost } from '../support/raw-request.util.js';
import { listen } from '../support/sse-stream.reader.js';

/**
 * 2025-11-25 sessions on the shared endpoint (docs/two-wires.md, "Sessions"; spec 2025-11-25: basic/transports,
 * "Session Management" and "Listening for Messages from the Server"; server/resources, "Subscriptions"; authorization
 * on every request: basic/authorization): termination by DELETE, 404 for ended and never-issued ids, 400 without an id,
 * the GET stream (one per session), resource subscriptions and list changes delivered untagged on that stream, idle
 * expiry and the session cap. Every message read is checked against the 2025-11-25 schema.
 */

/** A JSON-RPC error body (never an empty or HTML answer) with the given HTTP status. */
function expectJsonRpcError(response: LegacyRawResponse, status: number): WireMessage {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.messages).toHaveLength(1);
  expect(response.messages[0].error).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
  return response.messages[0];
}

const ping = (url: URL, sessionId: string | undefined, headers?: Record<string, string | undefined>) =>
  legacyPost(url, { id: 'ping', method: 'ping' }, { sessionId, headers });

describe.each(ADAPTERS)('2025-11-25 sessions (%s)', (adapter) => {
  describe('lifecycle, GET stream, subscriptions and list changes', () => {
    let running: RunningApp;
    const connections: LegacyConnection[] = [];
    const streams: LegacyStream[] = [];

    async function connect(): Promise<LegacyConnection> {
      const connection = await connectLegacyClient(running.mcpUrl);
      connections.push(connection);
      // The client opens the GET stream on its own once `notifications/initialized` is accepted.
      await connection.recorder.waitForGet(200);
      return connection;
    }

    async function openGet(sessionId: string, headers?: Record<string, string | undefined>): Promise<LegacyStream> {
      const stream = await openLegacyGet(running.mcpUrl, { sessionId, headers });
      streams.push(stream);
      return stream;
    }

    beforeAll(async () => {
      running = await startApp(adapter, { imports: [legacyModule()] });
    });
    afterAll(async () => {
      for (const stream of streams) stream.close();
      for (const connection of connections) await connection.client.close();
      await running?.close();
    });

    // spec 2025-11-25: basic/transports, "Session Management"
    describe('ending and finding sessions', () => {
      it('DELETE ends the session with 204; after that every verb with its id gets 404', async () => {
        const { sessionId } = await rawInitialize(running.mcpUrl);
        expect((await ping(running.mcpUrl, sessionId)).status).toBe(200);

        const deleted = await legacyVerb(running.mcpUrl, 'DELETE', { sessionId });
        expect(deleted.status).toBe(204);
        expect(deleted.text).toBe('');

        expectJsonRpcError(await ping(running.mcpUrl, sessionId), 404);
        expectJsonRpcError(await legacyPost(running.mcpUrl, { id: 2, method: 'tools/list' }, { sessionId }), 404);
        const notification = await legacyPost(running.mcpUrl, { method: 'notifications/initialized' }, { sessionId });
        expect(notification.status).toBe(404);
        expectJsonRpcError(await legacyVerb(running.mcpUrl, 'GET', { sessionId }), 404);
        expectJsonRpcError(await legacyVerb(running.mcpUrl, 'DELETE', { sessionId }), 404);
      });

      it('the official client terminates its session with DELETE (204); the id is dead afterwards', async () => {
        const connection = await connect();
        const { sessionId } = connection;
        await connection.transport.terminateSession();
        const deleted = connection.recorder.exchanges.find((exchange) => exchange.verb === 'DELETE')!;
        expect(deleted.status).toBe(204);
        expect(deleted.requestHeaders.get('mcp-session-id')).toBe(sessionId);
        expectJsonRpcError(await ping(running.mcpUrl, sessionId), 404);
      });

      it('DELETE closes the session GET stream', async () => {
        const { sessionId } = await rawInitialize(running.mcpUrl);
        const stream = await openGet(sessionId);
        expect(stream.status).toBe(200);
        expect((await legacyVerb(running.mcpUrl, 'DELETE', { sessionId })).status).toBe(204);
        await Promise.race([stream.ended, sleep(1_000)]);
        expect(stream.endedByServer).toBe(true);
      });

      it('a never-issued session id gets 404 on POST, GET and DELETE', async () => {
        for (const sessionId of ['never-issued', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
          expectJsonRpcError(await ping(running.mcpUrl, sessionId), 404);
          expectJsonRpcError(await legacyVerb(running.mcpUrl, 'GET', { sessionId }), 404);
          expectJsonRpcError(await legacyVerb(running.mcpUrl, 'DELETE', { sessionId }), 404);
        }
      });

      it('a non-initialize POST without a session id gets 400 (with or without MCP-Protocol-Version)', async () => {
        expectJsonRpcError(await ping(running.mcpUrl, undefined), 400);
        expectJsonRpcError(await ping(running.mcpUrl, undefined, { 'mcp-protocol-version': undefined }), 400);
        expectJsonRpcError(
          await legacyPost(running.mcpUrl, {
            id: 3,
            method: 'tools/call',
            params: { name: 'echo', arguments: { text: 'x' } },
          }),
          400,
        );
        const notification = await legacyPost(running.mcpUrl, { method: 'notifications/initialized' });
        expect(notification.status).toBe(400);
        const answer = await legacyPost(running.mcpUrl, { id: 's-1', result: {} });
        expect(answer.status).toBe(400);
      });

      it('GET and DELETE without a session id get 405, as on the 2026 wire', async () => {
        for (const verb of ['GET', 'DELETE'] as const) {
          const response = await legacyVerb(running.mcpUrl, verb);
          expect(response.status, verb).toBe(405);
          expect(response.headers.get('allow')).toBe('POST');
        }
      });

      // spec 2025-11-25: basic/transports, "Security Warning"
      it('Origin validation applies to the legacy path too: 403 on initialize, POST, GET and DELETE', async () => {
        const evil = { origin: 'https://evil.example' };
        const refused = await rawInitialize(running.mcpUrl, { headers: evil });
        expect(refused.response.status).toBe(403);
        expect(refused.response.headers.get('mcp-session-id')).toBeNull();
        const { sessionId } = await rawInitialize(running.mcpUrl);
        expectJsonRpcError(await ping(running.mcpUrl, sessionId, evil), 403);
        expectJsonRpcError(await legacyVerb(running.mcpUrl, 'GET', { sessionId, headers: evil }), 403);
        expectJsonRpcError(await legacyVerb(running.mcpUrl, 'DELETE', { sessionId, headers: evil }), 403);
        expect((await ping(running.mcpUrl, sessionId)).status).toBe(200);
      });

      // spec 2025-11-25: basic/security_best_practices, "Session Hijacking"; basic/authorization, "Token Handling"
      it('a session is bound to the principal that created it', async () => {
        const { sessionId } = await rawInitialize(running.mcpUrl, { headers: { 'x-user': 'alice' } });
        expect((await ping(running.mcpUrl, sessionId, { 'x-user': 'alice' })).status).toBe(200);
        expectJsonRpcError(await ping(running.mcpUrl, sessionId, { 'x-user': 'mallory' }), 404);
        expectJsonRpcError(await ping(running.mcpUrl, sessionId), 404);
      });
    });

    // spec 2025-11-25: basic/transports, "Listening for Messages from the Server"
    describe('the GET stream', () => {
      it('GET with a valid session opens an SSE stream; a second concurrent GET gets 409', async () => {
        const { sessionId } = await rawInitialize(running.mcpUrl);
        const first = await openGet(sessionId);
        expect(first.status).toBe(200);
        expect(first.response.headers.get('content-type')).toMatch(/^text\/event-stream/);

        const second = await openGet(sessionId);
        const secondBody = await Promise.race([
          second.ended.then(() => `ended: ${JSON.stringify(second.raw)}`),
          sleep(500).then(() => '(still open)'),
        ]);
        second.close();

        // The first stream is untouched and still delivers.
        await running.app.get(McpPublisher).promptsListChanged();
        await first.waitFor(
          (message) => message.method === 'notifications/prompts/list_changed',
          'prompts list_changed on the first stream',
        );
        expect(first.endedByServer).toBe(false);

        // One stream per session: the second is refused with 409 and a JSON-RPC error body.
        expect(
          { status: second.status, contentType: second.response.headers.get('content-type') },
          `second GET body: ${secondBody}`,
        ).toEqual({ status: 409, contentType: expect.stringMatching(/^application\/json/) });
      });

      it('after the stream closes, the session can open a new one', async () => {
        const { sessionId } = await rawInitialize(running.mcpUrl);
        const first = await openGet(sessionId);
        expect(first.status).toBe(200);
        first.close();
        await first.ended;
        // The server sees the close asynchronously: retry briefly.
        let reopened: LegacyStream | undefined;
        for (let attempt = 0; attempt < 20 && reopened?.status !== 200; attempt++) {
          reopened?.close();
          reopened = await openGet(sessionId);
          if (reopened.status !== 200) await sleep(25);
        }
        expect(reopened?.status).toBe(200);
      });
    });

    // spec 2025-11-25: server/resources, "Subscriptions" and "List Changed Notification"
    describe('resource subscriptions and list changes', () => {
      it('subscribe/unsubscribe return {}; updates arrive untagged on the GET stream only while subscribed', async () => {
        const connection = await connect();
        const publisher = running.app.get(McpPublisher);
        const updates: unknown[] = [];
        const toolChanges: unknown[] = [];
        connection.client.setNotificationHandler('notifications/resources/updated', (notification) => {
          updates.push(notification.params);
        });
        connection.client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
          toolChanges.push(notification.params ?? {});
        });

        await connection.client.subscribeResource({ uri: 'catalog://skus' });
        await publisher.resourceUpdated('catalog://skus');
        await until(() => updates.length === 1, 2_000, 'the resource update');
        expect(updates).toEqual([{ uri: 'catalog://skus' }]);

        // Not subscribed to this one.
        await publisher.resourceUpdated('catalog://logo');
        await connection.client.unsubscribeResource({ uri: 'catalog://skus' });
        await publisher.resourceUpdated('catalog://skus');
        // A later notification on the same stream is the barrier: nothing about the resources came before it.
        await publisher.toolsListChanged();
        await until(() => toolChanges.length === 1, 2_000, 'the tools list_changed barrier');
        expect(updates).toEqual([{ uri: 'catalog://skus' }]);

        await connection.recorder.settled();
        const recorded = connection.recorder.recorded;
        for (const method of ['resources/subscribe', 'resources/unsubscribe']) {
          const response = recorded.find((record) => record.requestMethod === method)!;
          expect((response.message as WireMessage).result, method).toEqual({});
        }
        const update = recorded.find(
          (record) => (record.message as WireMessage).method === 'notifications/resources/updated',
        )!;
        expect(update.verb).toBe('GET');
        expect(update.message).toEqual({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri: 'catalog://skus' },
        });
      });

      it('subscribe with an invalid uri → -32602', async () => {
        const { sessionId } = await rawInitialize(running.mcpUrl);
        for (const params of [{}, { uri: 'not a uri' }, { uri: 42 }]) {
          const response = await legacyPost(
            running.mcpUrl,
            { id: 'sub', method: 'resources/subscribe', params },
            { sessionId },
          );
          expect(response.status).toBe(200);
          expect(response.messages[0].error?.code, JSON.stringify(params)).toBe(-32602);
        }
      });

      it('registry changes at run time and McpPublisher list changes reach every initialized session on its GET stream', async () => {
        const [one, two] = [await connect(), await connect()];
        const registry = running.app.get(McpRegistry);
        const publisher = running.app.get(McpPublisher);
        const seen = new Map<LegacyConnection, string[]>([
          [one, []],
          [two, []],
        ]);
        for (const [connection, methods] of seen) {
          for (const method of [
            'notifications/tools/list_changed',
            'notifications/prompts/list_changed',
            'notifications/resources/list_changed',
          ] as const) {
            connection.client.setNotificationHandler(method, () => {
              methods.push(method.split('/')[1]);
            });
          }
        }
        // A raw session that never sent notifications/initialized gets nothing (spec 2025-11-25: basic/lifecycle,
        // "Initialization").
        const { sessionId: quiet } = await rawInitialize(running.mcpUrl, { initialized: false });
        const quietStream = await openGet(quiet);
        expect(quietStream.status).toBe(200);

        registry.registerTool({ name: 'runtimeEcho', description: 'Registered at run time' }, () => 'from runtime');
        await until(
          () => [...seen.values()].every((methods) => methods.length === 1),
          2_000,
          'tools list_changed on both sessions',
        );

        // The new tool is listed and callable on this wire.
        const listed = await one.client.listTools();
        expect(listed.tools.map((tool) => tool.name)).toContain('runtimeEcho');
        expect((await one.client.callTool({ name: 'runtimeEcho', arguments: {} })).content).toEqual([
          { type: 'text', text: 'from runtime' },
        ]);

        registry.removeTool('runtimeEcho');
        await publisher.promptsListChanged();
        await publisher.resourcesListChanged();
        await publisher.toolsListChanged();
        await until(
          () => [...seen.values()].every((methods) => methods.length === 5),
          2_000,
          'every list change on both sessions',
        );
        for (const methods of seen.values())
          expect(methods).toEqual(['tools', 'tools', 'prompts', 'resources', 'tools']);

        for (const connection of [one, two]) {
          const changes = connection.recorder.recorded.filter((record) =>
            (record.message as WireMessage).method?.endsWith('/list_changed'),
          );
          expect(changes).toHaveLength(5);
          for (const change of changes) {
            expect(change.verb).toBe('GET');
            // Untagged: no params at all (or no subscription id in them).
            expect((change.message as WireMessage).params?._meta).toBeUndefined();
          }
        }
        expect(quietStream.messages).toEqual([]);
      });

      it('a 2026 listen stream and a legacy GET stream each get the change in their own shape', async () => {
        const connection = await connect();
        const legacyChanges: unknown[] = [];
        connection.client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
          legacyChanges.push(notification);
        });
        const modern = await listen(running.mcpUrl, 'sub-legacy', { toolsListChanged: true });
        await modern.nextFrames(1);
        await running.app.get(McpPublisher).toolsListChanged();
        const tagged = await modern.waitFor(
          (message) => message.method === 'notifications/tools/list_changed',
          'tagged list_changed',
        );
        expect(tagged.params?._meta?.['io.modelcontextprotocol/subscriptionId']).toBe('sub-legacy');
        await until(() => legacyChanges.length === 1, 2_000, 'the untagged list_changed');
        modern.close();
        await modern.ended;
        expect(modern.problems).toEqual([]);
      });
    });

    it('every message the server sent on the legacy wire matches the 2025-11-25 schema', async () => {
      let checked = 0;
      for (const connection of connections) checked += await assertAllLegacyValid(connection.recorder);
      for (const stream of streams) expect(stream.problems).toEqual([]);
      expect(checked).toBeGreaterThan(10);
    });
  });

  describe('idle expiry (sessionIdleMs: 200)', () => {
    let running: RunningApp;

    beforeAll(async () => {
      running = await startApp(adapter, { imports: [legacyModule({ sessionIdleMs: 200 })] });
    });
    afterAll(async () => {
      await running?.close();
    });

    it('after ~400 ms idle the session id gets 404', async () => {
      const { sessionId } = await rawInitialize(running.mcpUrl);
      expect((await ping(running.mcpUrl, sessionId)).status).toBe(200);
      await sleep(400);
      expectJsonRpcError(await ping(running.mcpUrl, sessionId), 404);
      expectJsonRpcError(await legacyVerb(running.mcpUrl, 'GET', { sessionId }), 404);
    });

    it('a session in use stays alive past the idle time', async () => {
      const { sessionId } = await rawInitialize(running.mcpUrl);
      for (let i = 0; i < 10; i++) {
        await sleep(50);
        expect((await ping(running.mcpUrl, sessionId)).status, `ping ${i}`).toBe(200);
      }
    });

    it('an expired session ends its GET stream', async () => {
      const { sessionId } = await rawInitialize(running.mcpUrl);
      const stream = await openLegacyGet(running.mcpUrl, { sessionId });
      expect(stream.status).toBe(200);
      await Promise.race([stream.ended, sleep(1_000)]);
      stream.close();
      expect(stream.endedByServer).toBe(true);
    });
  });

  describe('session cap (maxSessions: 1)', () => {
    let running: RunningApp;

    beforeAll(async () => {
      running = await startApp(adapter, { imports: [legacyModule({ maxSessions: 1 })] });
    });
    afterAll(async () => {
      await running?.close();
    });

    it('a second initialize gets 503 with a JSON-RPC error and no session id; freeing the slot lets the next one in', async () => {
      const { sessionId, response } = await rawInitialize(running.mcpUrl);
      expect(response.status).toBe(200);

      const refused = await rawInitialize(running.mcpUrl);
      const error = expectJsonRpcError(refused.response, 503);
      expect(error.id).toEqual(expect.any(String));
      expect(refused.response.headers.get('mcp-session-id')).toBeNull();

      // The official client cannot connect either.
      await expect(connectLegacyClient(running.mcpUrl)).rejects.toThrow();

      // The 2026 wire is not capped.
      expect((await mcpPost(running.mcpUrl, { method: 'tools/list' })).status).toBe(200);

      expect((await legacyVerb(running.mcpUrl, 'DELETE', { sessionId })).status).toBe(204);
      const next = await connectLegacyClient(running.mcpUrl);
      expect((await next.client.callTool({ name: 'echo', arguments: { text: 'in' } })).content).toEqual([
        { type: 'text', text: 'echo: in' },
      ]);
      await next.client.close();
      expect(await assertAllLegacyValid(next.recorder)).toBeGreaterThan(0);
    });
  });
});
