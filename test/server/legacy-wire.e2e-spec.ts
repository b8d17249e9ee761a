import { ResourceNotFoundError, type Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyModule } from '../fixtures/legacy.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import {
  connectLegacyClient,
  LEGACY_VERSION,
  legacyPost,
  legacyVerb,
  rawInitialize,
  type LegacyConnection,
} from '../support/legacy-client.factory.js';
import { assertAllLegacyValid, type LegacyRecord } from '../support/legacy-schema.validator.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost } from '../support/raw-request.util.js';
import {
  assertAllValid,
  assertValidServerMessage,
  recordingFetch,
  type RecordingFetch,
} from '../support/wire-schema.validator.js';

/**
 * The 2025-11-25 ("legacy") wire on the 2026-07-28 endpoint (docs/two-wires.md; spec 2025-11-25: basic/lifecycle,
 * basic/transports; result shapes: spec 2026-07-28: changelog): the `initialize` handshake through the official client
 * in its default legacy mode, the session id, the same handlers as on the 2026 wire with results reshaped for
 * 2025-11-25, ping, session-level logging, progress, and a 2026 client served side by side. Every message the server
 * sent on the legacy wire is validated against the official 2025-11-25 schema.
 */

const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** The fields of a tool result the two wires are compared on. */
const callShape = (result: Record<string, unknown>) => ({
  content: result.content,
  structuredContent: result.structuredContent,
  isError: result.isError,
});

/** The result a recorded response carried for the request with `method` (the last one, when several). */
function lastResult(records: readonly LegacyRecord[], method: string): Record<string, unknown> {
  const found = records.filter(
    (record) =>
      record.requestMethod === method && record.verb === 'POST' && !(record.message as { method?: string }).method,
  );
  expect(found.length, `a recorded response to ${method}`).toBeGreaterThan(0);
  return (found.at(-1)!.message as { result: Record<string, unknown> }).result;
}

describe.each(ADAPTERS)('2025-11-25 wire: handshake, features and shapes (%s)', (adapter) => {
  let running: RunningApp;
  let legacy: LegacyConnection;
  let modern: Client;
  let modernRecorder: RecordingFetch;
  const extra: LegacyConnection[] = [];

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [legacyModule()] });
    legacy = await connectLegacyClient(running.mcpUrl);
    modernRecorder = recordingFetch();
    modern = await connectClient(running.mcpUrl, { fetch: modernRecorder.fetch });
  });
  afterAll(async () => {
    for (const connection of [legacy, ...extra]) await connection?.client.close();
    await modern?.close();
    await running?.close();
  });

  // spec 2025-11-25: basic/lifecycle, "Initialization" and "Version Negotiation"; basic/transports,
  // "Protocol Version Header" (not sent with `initialize`) and "Session Management".
  describe('initialize', () => {
    it('the official client negotiates 2025-11-25 and sees the server capabilities, serverInfo and instructions', async () => {
      const { client, recorder } = legacy;
      expect(client.getServerCapabilities()).toEqual({
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        logging: {},
      });
      expect(client.getServerVersion()).toEqual({ name: 'legacy', version: '2.0.0' });
      expect(client.getInstructions()).toBe('Serves both wires.');

      await recorder.settled();
      const result = lastResult(recorder.recorded, 'initialize');
      expect(result.protocolVersion).toBe(LEGACY_VERSION);
      // serverInfo is top-level here (the 2026 wire puts it in result _meta).
      expect(result.serverInfo).toEqual({ name: 'legacy', version: '2.0.0' });
      expect(result).not.toHaveProperty('_meta');
      expect(result.capabilities).not.toHaveProperty('extensions');
      expect(result.capabilities).not.toHaveProperty('tasks');
    });

    it('the client sent initialize without MCP-Protocol-Version and got the session id in a visible-ASCII header', async () => {
      const initialize = legacy.recorder.exchanges.find((exchange) => exchange.requestMethod === 'initialize')!;
      expect(initialize.requestHeaders.get('mcp-protocol-version')).toBeNull();
      expect(initialize.requestHeaders.get('mcp-method')).toBeNull();
      expect(initialize.status).toBe(200);
      const sessionId = initialize.headers.get('mcp-session-id');
      expect(sessionId).toBe(legacy.sessionId);
      expect(sessionId).toMatch(VISIBLE_ASCII);
      // notifications/initialized is accepted with 202; later requests carry the session and the negotiated version.
      const initialized = legacy.recorder.exchanges.find(
        (exchange) => exchange.requestMethod === 'notifications/initialized',
      )!;
      expect(initialized.status).toBe(202);
      expect(initialized.requestHeaders.get('mcp-session-id')).toBe(legacy.sessionId);
      expect(initialized.requestHeaders.get('mcp-protocol-version')).toBe(LEGACY_VERSION);
    });

    it('raw: each initialize mints a fresh, random, visible-ASCII session id on an application/json answer', async () => {
      const first = await rawInitialize(running.mcpUrl);
      const second = await rawInitialize(running.mcpUrl);
      for (const { sessionId, response } of [first, second]) {
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(sessionId).toMatch(VISIBLE_ASCII);
        expect(sessionId.length).toBeGreaterThanOrEqual(22);
        expect(response.messages).toHaveLength(1);
        expect(response.messages[0].result).not.toHaveProperty('resultType');
      }
      expect(first.sessionId).not.toBe(second.sessionId);
    });

    it.each([
      ['2025-11-25', '2025-11-25'],
      ['2025-06-18', '2025-06-18'],
      ['2024-11-05', '2025-11-25'],
      ['2026-07-28', '2025-11-25'],
    ])('a client asking for %s is answered with %s (negotiation, never an error)', async (requested, answered) => {
      const { sessionId, response } = await rawInitialize(running.mcpUrl, {
        protocolVersion: requested,
        initialized: false,
      });
      expect(response.status).toBe(200);
      expect(response.messages[0].result?.protocolVersion).toBe(answered);
      const ping = await legacyPost(
        running.mcpUrl,
        { id: 1, method: 'ping' },
        { sessionId, headers: { 'mcp-protocol-version': answered } },
      );
      expect(ping.status).toBe(200);
      expect(ping.messages[0].result).toEqual({});
    });
  });

  describe('malformed legacy traffic', () => {
    it('initialize without protocolVersion/capabilities → -32602, no session minted', async () => {
      const raw = await legacyPost(
        running.mcpUrl,
        { id: 'bad-init', method: 'initialize', params: { clientInfo: { name: 'x', version: '1' } } },
        { headers: { 'mcp-protocol-version': undefined } },
      );
      expect(raw.messages[0]).toMatchObject({ id: 'bad-init', error: { code: -32602 } });
      expect(raw.headers.get('mcp-session-id')).toBeNull();
    });

    it('a JSON-RPC batch (removed in 2025-06-18) is refused with a JSON-RPC error', async () => {
      const response = await fetch(running.mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': LEGACY_VERSION,
          'mcp-session-id': legacy.sessionId,
        },
        body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }]),
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error?: { code: number } };
      expect(body.error?.code).toBe(-32600);
    });
  });

  // What changed in the shapes: spec 2026-07-28: changelog, "Minor changes"; on 2025-11-25 `structuredContent` is
  // an object (spec 2025-11-25: server/tools, "Structured Content").
  describe('the same handlers as on the 2026 wire, results shaped for 2025-11-25', () => {
    it('tools/list lists the same tools; an outputSchema with a non-object root is dropped on this wire only', async () => {
      const legacyTools = (await legacy.client.listTools()).tools;
      const modernTools = (await modern.listTools()).tools;
      expect(legacyTools.map((tool) => tool.name).sort()).toEqual(modernTools.map((tool) => tool.name).sort());
      const modernByName = new Map(modernTools.map((tool) => [tool.name, tool]));
      for (const tool of legacyTools) {
        if (tool.name === 'tags') continue;
        expect(tool, tool.name).toEqual(modernByName.get(tool.name));
      }
      const legacyTags = legacyTools.find((tool) => tool.name === 'tags')!;
      const modernTags = modernByName.get('tags')!;
      expect(modernTags.outputSchema).toEqual({ type: 'array', items: { type: 'string' } });
      expect(legacyTags).not.toHaveProperty('outputSchema');
      const { outputSchema: _dropped, ...rest } = modernTags;
      expect(legacyTags).toEqual(rest);
      // An object-rooted output schema stays.
      expect(legacyTools.find((tool) => tool.name === 'add')!.outputSchema).toMatchObject({ type: 'object' });

      await legacy.recorder.settled();
      const raw = lastResult(legacy.recorder.recorded, 'tools/list');
      expect(raw).not.toHaveProperty('ttlMs');
      expect(raw).not.toHaveProperty('cacheScope');
      expect(raw).not.toHaveProperty('resultType');
    });

    it.each([
      ['add', { a: 2, b: 3 }],
      ['echo', { text: 'hello' }],
      ['placeOrder', { customer: 'Ada', lines: [{ sku: 'apple', quantity: 2 }] }],
      ['outOfStock', {}],
      ['crash', {}],
      ['shout', { text: 'quiet' }],
      ['echo', { text: '' }],
    ])('tools/call %s gives the same result on both wires', async (name, args) => {
      const onLegacy = await legacy.client.callTool({ name, arguments: args });
      const onModern = await modern.callTool({ name, arguments: args });
      expect(callShape(onLegacy)).toEqual(callShape(onModern));
      expect(onLegacy).not.toHaveProperty('resultType');
    });

    it('structuredContent that is not an object is dropped on this wire, kept on the 2026 wire', async () => {
      const legacyTags = await legacy.client.callTool({ name: 'tags', arguments: {} });
      const modernTags = await modern.callTool({ name: 'tags', arguments: {} });
      expect(modernTags.structuredContent).toEqual(['alpha', 'beta']);
      expect(legacyTags.structuredContent).toBeUndefined();
      expect(legacyTags.content).toEqual(modernTags.content);
      expect(legacyTags.content).toEqual([{ type: 'text', text: '["alpha","beta"]' }]);

      const legacyAnswer = await legacy.client.callTool({ name: 'answer', arguments: {} });
      const modernAnswer = await modern.callTool({ name: 'answer', arguments: {} });
      expect(modernAnswer.structuredContent).toBe(42);
      expect(legacyAnswer.structuredContent).toBeUndefined();
      expect(legacyAnswer.content).toEqual([{ type: 'text', text: '42' }]);

      // An object stays on both wires.
      const legacyAdd = await legacy.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
      expect(legacyAdd.structuredContent).toEqual({ sum: 2 });
    });

    it('prompts/list and prompts/get', async () => {
      expect((await legacy.client.listPrompts()).prompts).toEqual((await modern.listPrompts()).prompts);
      const args = { name: 'describeFruit', arguments: { fruit: 'cherry', tone: 'solemn' } };
      const onLegacy = await legacy.client.getPrompt(args);
      expect(onLegacy.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Describe cherry in a solemn tone.' } },
      ]);
      expect(onLegacy.messages).toEqual((await modern.getPrompt(args)).messages);
    });

    it('resources/list, resources/templates/list and resources/read (text, blob, template)', async () => {
      expect((await legacy.client.listResources()).resources).toEqual((await modern.listResources()).resources);
      expect((await legacy.client.listResourceTemplates()).resourceTemplates).toEqual(
        (await modern.listResourceTemplates()).resourceTemplates,
      );
      for (const uri of ['catalog://skus', 'catalog://logo', 'catalog://items/apple']) {
        const onLegacy = await legacy.client.readResource({ uri });
        expect(onLegacy.contents.length, uri).toBe(1);
        expect(onLegacy.contents).toEqual((await modern.readResource({ uri })).contents);
      }
      await legacy.recorder.settled();
      const raw = lastResult(legacy.recorder.recorded, 'resources/read');
      expect(raw).not.toHaveProperty('ttlMs');
      expect(raw).not.toHaveProperty('cacheScope');
    });

    it('completion/complete for a prompt argument and a template variable', async () => {
      const promptRef = {
        ref: { type: 'ref/prompt' as const, name: 'describeFruit' },
        argument: { name: 'fruit', value: 'a' },
      };
      const onLegacy = await legacy.client.complete(promptRef);
      expect(onLegacy.completion.values).toEqual(['apple', 'apricot']);
      expect(onLegacy.completion).toEqual((await modern.complete(promptRef)).completion);

      const templateRef = {
        ref: { type: 'ref/resource' as const, uri: 'catalog://items/{sku}' },
        argument: { name: 'sku', value: 'b' },
      };
      expect((await legacy.client.complete(templateRef)).completion.values).toEqual(['banana']);
    });

    // spec 2025-11-25: server/resources, "Error Handling"; spec 2026-07-28: basic/index, "Error Codes"
    it('resource not found is -32002 with data.uri on this wire (-32602 on the 2026 wire)', async () => {
      for (const uri of ['catalog://items/kiwi', 'nothing://here']) {
        // The official client folds both codes into one ResourceNotFoundError, so the wire code is read from the recorder.
        const onLegacy = await legacy.client.readResource({ uri }).catch((error: unknown) => error);
        expect(onLegacy).toBeInstanceOf(ResourceNotFoundError);
        expect(onLegacy).toMatchObject({ data: { uri } });
        await expect(modern.readResource({ uri })).rejects.toMatchObject({ code: -32602, data: { uri } });
        await legacy.recorder.settled();
        const sent = legacy.recorder.recorded
          .filter((record) => record.requestMethod === 'resources/read')
          .at(-1)!.message;
        expect(sent).toMatchObject({ error: { code: -32002, message: 'Resource not found', data: { uri } } });
      }
      // Raw: still HTTP 200 (a JSON-RPC error, not a transport failure).
      const raw = await legacyPost(
        running.mcpUrl,
        { id: 'nf', method: 'resources/read', params: { uri: 'catalog://items/kiwi' } },
        { sessionId: legacy.sessionId },
      );
      expect(raw.status).toBe(200);
      expect(raw.messages[0].error).toMatchObject({ code: -32002, data: { uri: 'catalog://items/kiwi' } });
    });

    it('an unknown tool and an unknown method are JSON-RPC errors with HTTP 200', async () => {
      await expect(legacy.client.callTool({ name: 'noSuchTool', arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
      const raw = await legacyPost(
        running.mcpUrl,
        { id: 'nm', method: 'tools/teleport', params: {} },
        { sessionId: legacy.sessionId },
      );
      expect(raw.status).toBe(200);
      expect(raw.messages[0]).toMatchObject({ id: 'nm', error: { code: -32601 } });
    });
    it('subscriptions/listen does not exist on this wire: -32601 with HTTP 200 (404 means "session gone" here)', async () => {
      const raw = await legacyPost(
        running.mcpUrl,
        { id: 'listen', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } },
        { sessionId: legacy.sessionId },
      );
      expect(raw.messages[0]).toMatchObject({ id: 'listen', error: { code: -32601 } });
      expect(raw.status).toBe(200);
    });
  });

  describe('session-level utilities', () => {
    // spec 2025-11-25: basic/utilities/ping, "Behavior Requirements"
    it('ping answers {}', async () => {
      await expect(legacy.client.ping()).resolves.toBeDefined();
      await legacy.recorder.settled();
      expect(lastResult(legacy.recorder.recorded, 'ping')).toEqual({});
      const raw = await legacyPost(running.mcpUrl, { id: 'p-1', method: 'ping' }, { sessionId: legacy.sessionId });
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
      expect(raw.messages).toEqual([{ jsonrpc: '2.0', id: 'p-1', result: {} }]);
    });

    // spec 2025-11-25: server/utilities/logging, "Error Handling"
    it.each([['verbose'], ['WARNING'], [42], [undefined]])('logging/setLevel with level %s → -32602', async (level) => {
      const raw = await legacyPost(
        running.mcpUrl,
        { id: 'lvl', method: 'logging/setLevel', params: level === undefined ? {} : { level } },
        { sessionId: legacy.sessionId },
      );
      expect(raw.status).toBe(200);
      expect(raw.messages[0]).toMatchObject({ id: 'lvl', error: { code: -32602 } });
    });

    it('logging/setLevel sets the session threshold: only messages at or above it arrive, on the call stream', async () => {
      const connection = await connectLegacyClient(running.mcpUrl);
      extra.push(connection);
      const received: Array<Record<string, unknown>> = [];
      connection.client.setNotificationHandler('notifications/message', (notification) => {
        received.push(notification.params as Record<string, unknown>);
      });

      // No level set yet: this server's default is to send nothing.
      const before = await connection.client.callTool({ name: 'logEveryLevel', arguments: {} });
      expect(before.content).toEqual([{ type: 'text', text: 'sent ' }]);
      expect(received).toEqual([]);

      await connection.client.setLoggingLevel('warning');
      await connection.recorder.settled();
      expect(lastResult(connection.recorder.recorded, 'logging/setLevel')).toEqual({});
      const events: string[] = [];
      connection.client.setNotificationHandler('notifications/message', (notification) => {
        received.push(notification.params as Record<string, unknown>);
        events.push(`log:${String(notification.params.level)}`);
      });
      const after = await connection.client.callTool({ name: 'logEveryLevel', arguments: {} });
      events.push('result');
      const expected = ['warning', 'error', 'critical', 'alert', 'emergency'];
      expect(after.content).toEqual([{ type: 'text', text: `sent ${expected.join(',')}` }]);
      expect(received).toEqual(
        expected.map((level) => ({ level, logger: 'legacy', data: { note: `a ${level} message` } })),
      );
      expect(events).toEqual([...expected.map((level) => `log:${level}`), 'result']);

      // They came on the tools/call POST stream, not the GET stream.
      await connection.recorder.settled();
      const logs = connection.recorder.recorded.filter(
        (record) => (record.message as { method?: string }).method === 'notifications/message',
      );
      expect(logs).toHaveLength(5);
      for (const log of logs) expect([log.verb, log.requestMethod]).toEqual(['POST', 'tools/call']);

      received.length = 0;
      await connection.client.setLoggingLevel('emergency');
      await connection.client.callTool({ name: 'logEveryLevel', arguments: {} });
      expect(received.map((params) => params.level)).toEqual(['emergency']);
    });

    it('progress: callTool(…, { onprogress }) receives every notification, in order, before the result', async () => {
      const events: unknown[] = [];
      const result = await legacy.client.callTool(
        { name: 'longJob', arguments: { steps: 4 } },
        { onprogress: (progress) => events.push(progress) },
      );
      events.push('result');
      expect(result.content).toEqual([{ type: 'text', text: 'done 4' }]);
      expect(events).toEqual([
        { progress: 0.5, total: 2, message: 'step 1 of 4' },
        { progress: 1, total: 2, message: 'step 2 of 4' },
        { progress: 1.5, total: 2, message: 'step 3 of 4' },
        { progress: 2, total: 2, message: 'step 4 of 4' },
        'result',
      ]);

      // On the wire: the progress frames precede the response on the same POST stream, with the client's token.
      await legacy.recorder.settled();
      const call = legacy.recorder.exchanges.filter((exchange) => exchange.requestMethod === 'tools/call').at(-1)!;
      const frames = legacy.recorder.recorded.filter(
        (record) => record.requestId === call.requestId && record.requestMethod === 'tools/call',
      );
      expect(frames.map((frame) => (frame.message as { method?: string }).method ?? 'response')).toEqual([
        'notifications/progress',
        'notifications/progress',
        'notifications/progress',
        'notifications/progress',
        'response',
      ]);
      const token = (call.sentBody as { params: { _meta: { progressToken: unknown } } }).params._meta.progressToken;
      for (const frame of frames.slice(0, 4))
        expect((frame.message as { params: { progressToken: unknown } }).params.progressToken).toBe(token);
    });

    it('progress of a prompt and a resource on this wire', async () => {
      const promptProgress: unknown[] = [];
      await legacy.client.getPrompt(
        { name: 'slowPrompt' },
        { onprogress: (progress) => promptProgress.push(progress) },
      );
      expect(promptProgress).toEqual([
        { progress: 1, total: 2, message: 'loading' },
        { progress: 2, total: 2, message: 'rendering' },
      ]);
      const resourceProgress: unknown[] = [];
      const read = await legacy.client.readResource(
        { uri: 'progress://report' },
        { onprogress: (progress) => resourceProgress.push(progress) },
      );
      expect(read.contents).toEqual([{ uri: 'progress://report', mimeType: 'text/plain', text: 'report body' }]);
      expect(resourceProgress).toHaveLength(1);
    });
  });

  // spec 2025-11-25: basic/transports, "Protocol Version Header"; the 2026 headers are not asked of a legacy client
  // (spec 2026-07-28: basic/versioning, "Backward Compatibility with Initialization-Based Versions").
  describe('headers on this wire', () => {
    it('legacy requests need no Mcp-Method, Mcp-Name or _meta; a missing version header means the session version', async () => {
      const bare = await legacyPost(
        running.mcpUrl,
        { id: 'h-1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'bare' } } },
        { sessionId: legacy.sessionId, headers: { 'mcp-protocol-version': undefined } },
      );
      expect(bare.status).toBe(200);
      expect(bare.messages[0].result?.content).toEqual([{ type: 'text', text: 'echo: bare' }]);
    });

    it('an unsupported MCP-Protocol-Version on a session request → 400', async () => {
      const raw = await legacyPost(
        running.mcpUrl,
        { id: 'h-2', method: 'tools/list' },
        { sessionId: legacy.sessionId, headers: { 'mcp-protocol-version': '1999-01-01' } },
      );
      expect(raw.status).toBe(400);
      expect(raw.messages[0].error).toBeDefined();
    });
  });

  describe('a 2026-07-28 client on the same endpoint', () => {
    it('is served side by side, statelessly, with its own shapes', async () => {
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const [onModern, onLegacy] = await Promise.all([
        modern.callTool({ name: 'echo', arguments: { text: 'modern' } }),
        legacy.client.callTool({ name: 'echo', arguments: { text: 'legacy' } }),
      ]);
      expect(onModern.content).toEqual([{ type: 'text', text: 'echo: modern' }]);
      expect(onLegacy.content).toEqual([{ type: 'text', text: 'echo: legacy' }]);

      const raw = await mcpPost(running.mcpUrl, { method: 'tools/list' });
      expect(raw.status).toBe(200);
      expect(raw.headers.get('mcp-session-id')).toBeNull();
      assertValidServerMessage(raw.json, 'tools/list');
      expect((raw.json as { result: Record<string, unknown> }).result.resultType).toBe('complete');
    });

    it('a 2026 request carrying a stale, unknown or live Mcp-Session-Id is served statelessly', async () => {
      const { sessionId: stale } = await rawInitialize(running.mcpUrl);
      expect((await legacyVerb(running.mcpUrl, 'DELETE', { sessionId: stale })).status).toBe(204);
      expect((await legacyPost(running.mcpUrl, { id: 1, method: 'ping' }, { sessionId: stale })).status).toBe(404);

      for (const sessionId of [stale, 'never-issued-session', legacy.sessionId]) {
        const raw = await mcpPost(running.mcpUrl, {
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'stateless' } },
          headers: { 'mcp-session-id': sessionId },
        });
        expect(raw.status, sessionId).toBe(200);
        expect(raw.headers.get('mcp-session-id')).toBeNull();
        assertValidServerMessage(raw.json, 'tools/call');
        const result = (raw.json as { result: Record<string, unknown> }).result;
        expect(result.resultType).toBe('complete');
        expect(result.content).toEqual([{ type: 'text', text: 'echo: stateless' }]);
      }
    });

    it('every message sent to the 2026 client was valid under 2026-07-28', async () => {
      expect(await assertAllValid(modernRecorder)).toBeGreaterThan(0);
    });
  });

  it('every message the server sent on the legacy wire matches the 2025-11-25 schema', async () => {
    let checked = 0;
    for (const connection of [legacy, ...extra]) checked += await assertAllLegacyValid(connection.recorder);
    expect(checked).toBeGreaterThan(20);
  });
});
