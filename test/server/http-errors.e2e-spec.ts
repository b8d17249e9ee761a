import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogModule } from '../fixtures/catalog.fixture.js';
import { SMALL_BODY_LIMIT, SmallBodyModule } from '../fixtures/small-body.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import {
  base64Sentinel,
  mcpPost,
  mcpPostViaHttp,
  PROTOCOL_VERSION,
  requestMeta,
  type RawResponse,
} from '../support/raw-request.util.js';
import { assertValidServerMessage, sseDataFrames } from '../support/wire-schema.validator.js';

/**
 * One test per HTTP rule of spec 2026-07-28: basic/transports/streamable-http (and the `_meta` rules of basic/index,
 * "`_meta`", as seen over HTTP; nest-mcp's statuses: docs/http-transport.md): status code, JSON-RPC code, id echo,
 * schema-valid body, and that the server keeps serving afterwards.
 */

interface TextBlock {
  type: string;
  text: string;
}

interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * Checks an error answer: HTTP status, JSON body valid against the official schema, JSON-RPC code, and the id —
 * `echoed` (the request's id), `absent` (could not be read), or `either` (the spec lets the server omit it).
 */
function expectError(
  response: RawResponse,
  status: number,
  code: number,
  id: 'echoed' | 'absent' | 'either' = 'echoed',
): WireError {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
  assertValidServerMessage(response.json);
  const body = response.json as { id?: unknown; error: WireError };
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(0);
  if (id === 'echoed') expect(body.id).toBe(response.sentId);
  if (id === 'absent') expect(body).not.toHaveProperty('id');
  if (id === 'either' && 'id' in body) expect(body.id).toBe(response.sentId);
  return body.error;
}

/** Checks a successful JSON answer to `method` and returns its result. */
function expectResult<T = Record<string, unknown>>(response: RawResponse, method: string): T {
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
  assertValidServerMessage(response.json, method);
  const body = response.json as { id: unknown; result: T };
  expect(body.id).toBe(response.sentId);
  return body.result;
}

describe.each(ADAPTERS)('HTTP rules of the 2026-07-28 transport (%s)', (adapter) => {
  let running: RunningApp;
  let url: URL;

  /** After a rejected request the server must still answer a correct one. */
  async function expectStillServing(): Promise<void> {
    const response = await mcpPost(url, { method: 'tools/call', params: { name: 'add', arguments: { a: 20, b: 22 } } });
    expect(expectResult<{ structuredContent: unknown }>(response, 'tools/call').structuredContent).toEqual({ sum: 42 });
  }

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [CatalogModule] });
    url = running.mcpUrl;
  });
  afterAll(async () => {
    await running?.close();
  });

  describe('baseline', () => {
    it('answers a correct tools/call that emits nothing with one plain application/json response', async () => {
      const response = await mcpPost(url, { method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } });
      const result = expectResult<{ resultType: string; structuredContent: unknown }>(response, 'tools/call');
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(result.resultType).toBe('complete');
      expect(result.structuredContent).toEqual({ sum: 5 });
    });

    it('accepts a string id and echoes it', async () => {
      const response = await mcpPost(url, { method: 'tools/list', id: 'req-α' });
      expectResult(response, 'tools/list');
      expect((response.json as { id: unknown }).id).toBe('req-α');
    });
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Security & Endpoint"
  describe('Origin and Host (DNS rebinding)', () => {
    it('answers 403 to a request whose Origin is not allowed', async () => {
      const response = await mcpPost(url, { method: 'tools/list', headers: { origin: 'https://evil.example.com' } });
      expectError(response, 403, -32600, 'either');
      await expectStillServing();
    });

    // spec 2026-07-28: basic/transports/streamable-http, "Security & Endpoint"
    it.each(['GET', 'DELETE'])('answers 403 to a %s whose Origin is not allowed (every connection)', async (verb) => {
      const response = await fetch(url, {
        method: verb,
        headers: { origin: 'https://evil.example.com', accept: 'text/event-stream' },
      });
      expect(response.status).toBe(403);
      await response.body?.cancel();
      await expectStillServing();
    });

    it('accepts a loopback Origin on a loopback bind', async () => {
      const response = await mcpPost(url, { method: 'tools/list', headers: { origin: running.baseUrl } });
      expectResult(response, 'tools/list');
    });

    it('answers 403 to Host: evil.example.com even with a matching Origin', async () => {
      const response = await mcpPostViaHttp(url, {
        method: 'tools/list',
        headers: { host: 'evil.example.com', origin: 'http://evil.example.com' },
      });
      expectError(response, 403, -32600, 'either');
      await expectStillServing();
    });
  });

  // spec 2026-07-28: basic/index, "`_meta`"
  describe('per-request _meta', () => {
    it('answers 400/-32602 when params has no _meta', async () => {
      const response = await mcpPost(url, { method: 'tools/list', meta: false });
      expectError(response, 400, -32602);
      await expectStillServing();
    });

    it('answers 400/-32602 when the request has no params at all', async () => {
      const response = await mcpPost(url, {
        method: 'tools/list',
        rawBody: JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/list' }),
      });
      expectError(response, 400, -32602, 'either');
      expect((response.json as { id?: unknown }).id).toBe(77);
      await expectStillServing();
    });

    it('answers 400/-32602 when _meta lacks the protocol version', async () => {
      const meta = requestMeta();
      delete meta['io.modelcontextprotocol/protocolVersion'];
      const response = await mcpPost(url, { method: 'tools/list', meta });
      expectError(response, 400, -32602);
      await expectStillServing();
    });

    it('answers 400/-32602 when _meta lacks the client capabilities', async () => {
      const meta = requestMeta();
      delete meta['io.modelcontextprotocol/clientCapabilities'];
      const response = await mcpPost(url, { method: 'tools/list', meta });
      expectError(response, 400, -32602);
      await expectStillServing();
    });

    // spec 2026-07-28: basic/index, "`_meta`"
    it('serves a request without clientInfo (optional)', async () => {
      const meta = requestMeta();
      delete meta['io.modelcontextprotocol/clientInfo'];
      const response = await mcpPost(url, {
        method: 'tools/call',
        meta,
        params: { name: 'add', arguments: { a: 1, b: 1 } },
      });
      expect(expectResult<{ structuredContent: unknown }>(response, 'tools/call').structuredContent).toEqual({
        sum: 2,
      });
    });

    it('answers 400/-32602 when clientCapabilities is not an object', async () => {
      const response = await mcpPost(url, {
        method: 'tools/list',
        meta: requestMeta({ 'io.modelcontextprotocol/clientCapabilities': 'everything' }),
      });
      expectError(response, 400, -32602);
      await expectStillServing();
    });

    it('accepts trace context and third-party _meta keys', async () => {
      const response = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 3, b: 4 } },
        meta: requestMeta({
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          tracestate: 'vendor=value',
          'com.example/tenant': 'acme',
        }),
      });
      expect(expectResult<{ structuredContent: unknown }>(response, 'tools/call').structuredContent).toEqual({
        sum: 7,
      });
    });

    it('answers 400/-32602 to a logLevel that is not one of the eight levels', async () => {
      const response = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 1, b: 1 } },
        meta: requestMeta({ 'io.modelcontextprotocol/logLevel': 'verbose' }),
      });
      expectError(response, 400, -32602);
      await expectStillServing();
    });
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Standard Request Headers" and "Server Validation"
  describe('standard headers', () => {
    it('answers 400/-32020 when MCP-Protocol-Version is missing', async () => {
      const response = await mcpPost(url, { method: 'tools/list', headers: { 'mcp-protocol-version': undefined } });
      expectError(response, 400, -32020);
      await expectStillServing();
    });

    it('answers 400/-32020 when Mcp-Method is missing', async () => {
      const response = await mcpPost(url, { method: 'tools/list', headers: { 'mcp-method': undefined } });
      expectError(response, 400, -32020);
      await expectStillServing();
    });

    it.each([
      ['tools/call', { name: 'add', arguments: { a: 1, b: 2 } }],
      ['prompts/get', { name: 'describeFruit', arguments: { fruit: 'apple' } }],
      ['resources/read', { uri: 'catalog://skus' }],
    ] as const)('answers 400/-32020 when Mcp-Name is missing on %s', async (method, params) => {
      const response = await mcpPost(url, { method, params, headers: { 'mcp-name': undefined } });
      expectError(response, 400, -32020);
      await expectStillServing();
    });

    it('answers 400/-32020 when MCP-Protocol-Version disagrees with _meta', async () => {
      const response = await mcpPost(url, { method: 'tools/list', headers: { 'mcp-protocol-version': '2025-11-25' } });
      expectError(response, 400, -32020);
      await expectStillServing();
    });

    it('answers 400/-32020 when Mcp-Method disagrees with the body method', async () => {
      const response = await mcpPost(url, { method: 'prompts/list', headers: { 'mcp-method': 'tools/list' } });
      expectError(response, 400, -32020);
      await expectStillServing();
    });

    it('compares Mcp-Method case-sensitively', async () => {
      const response = await mcpPost(url, { method: 'tools/list', headers: { 'mcp-method': 'TOOLS/LIST' } });
      expectError(response, 400, -32020);
    });

    it.each([
      ['tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, 'echo'],
      ['prompts/get', { name: 'describeFruit', arguments: { fruit: 'apple' } }, 'otherPrompt'],
      ['resources/read', { uri: 'catalog://skus' }, 'catalog://logo'],
    ] as const)('answers 400/-32020 when Mcp-Name disagrees with the body on %s', async (method, params, wrongName) => {
      const response = await mcpPost(url, { method, params, headers: { 'mcp-name': wrongName } });
      expectError(response, 400, -32020);
      await expectStillServing();
    });

    // spec 2026-07-28: basic/transports/streamable-http, "Value Encoding"
    it('accepts a Base64-sentinel Mcp-Name that decodes to the body name', async () => {
      const response = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 4, b: 5 } },
        headers: { 'mcp-name': base64Sentinel('add') },
      });
      expect(expectResult<{ structuredContent: unknown }>(response, 'tools/call').structuredContent).toEqual({
        sum: 9,
      });
    });

    it('accepts a Base64-sentinel Mcp-Name for a resource URI', async () => {
      const response = await mcpPost(url, {
        method: 'resources/read',
        params: { uri: 'catalog://items/apple' },
        headers: { 'mcp-name': base64Sentinel('catalog://items/apple') },
      });
      const result = expectResult<{ contents: Array<{ uri: string; text: string }> }>(response, 'resources/read');
      expect(result.contents[0]).toMatchObject({
        uri: 'catalog://items/apple',
        text: JSON.stringify({ sku: 'apple' }),
      });
    });

    // spec 2026-07-28: basic/transports/streamable-http, "Value Encoding" and "Server Validation"
    it('answers 400/-32020 to a raw non-ASCII Mcp-Name (must be Base64-encoded)', async () => {
      const response = await mcpPostViaHttp(url, {
        method: 'tools/call',
        params: { name: 'café', arguments: {} },
        headers: { 'mcp-name': 'caf\u00e9' },
      });
      expectError(response, 400, -32020);
      await expectStillServing();
    });

    it('decodes a UTF-8 Base64-sentinel Mcp-Name before comparing (reaches the tool lookup)', async () => {
      const response = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'café', arguments: {} },
        headers: { 'mcp-name': base64Sentinel('café') },
      });
      // The header matched the body, so the request got past the transport: the tool simply does not exist.
      expectError(response, 200, -32602);
    });

    it('answers 400/-32020 to a Base64-sentinel Mcp-Name that decodes to another name', async () => {
      const response = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 4, b: 5 } },
        headers: { 'mcp-name': base64Sentinel('echo') },
      });
      expectError(response, 400, -32020);
      await expectStillServing();
    });
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Protocol Version Header"; basic/index, "`_meta`"
  describe('protocol version', () => {
    it.each(['tools/list', 'server/discover'])(
      'answers 400/-32022 with data.supported and data.requested to an unsupported version (%s)',
      async (method) => {
        const discover = expectResult<{ supportedVersions: string[] }>(
          await mcpPost(url, { method: 'server/discover' }),
          'server/discover',
        );
        const response = await mcpPost(url, {
          method,
          meta: requestMeta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
          headers: { 'mcp-protocol-version': '1900-01-01' },
        });
        const error = expectError(response, 400, -32022);
        const data = error.data as { supported: string[]; requested: string };
        expect(data.requested).toBe('1900-01-01');
        expect(data.supported.length).toBeGreaterThan(0);
        expect(data.supported).toContain(PROTOCOL_VERSION);
        for (const version of data.supported) expect(discover.supportedVersions).toContain(version);
        await expectStillServing();
      },
    );
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Protocol Version Header" (the 404 rule)
  describe('method not found', () => {
    it.each([
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
      'tools/explode',
    ])('answers 404/-32601 to %s sent with the 2026 envelope and headers', async (method) => {
      const params = method.startsWith('resources/')
        ? { uri: 'catalog://skus' }
        : method === 'logging/setLevel'
          ? { level: 'info' }
          : {};
      const response = await mcpPost(url, { method, params });
      expectError(response, 404, -32601);
      await expectStillServing();
    });
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Sending Messages" and "Earlier Streamable HTTP Revisions"
  describe('notifications and other verbs', () => {
    it('answers a notification POST with 202 and an empty body', async () => {
      const response = await mcpPost(url, {
        method: 'notifications/cancelled',
        id: null,
        params: { requestId: 1, reason: 'test' },
      });
      expect(response.status).toBe(202);
      expect(response.text).toBe('');
      await expectStillServing();
    });

    it.each(['GET', 'DELETE'])('answers %s with 405 (no stream, no sessions)', async (verb) => {
      const response = await fetch(url, {
        method: verb,
        headers: { accept: 'text/event-stream', 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-session-id': 'abc' },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toContain('POST');
      expect(response.headers.get('mcp-session-id')).toBeNull();
      await response.body?.cancel();
      await expectStillServing();
    });
  });

  // spec 2026-07-28: basic/index, "Messages"
  describe('JSON-RPC framing', () => {
    it('answers malformed JSON with 400/-32700 and no id', async () => {
      const response = await mcpPost(url, {
        method: 'tools/list',
        rawBody: '{"jsonrpc":"2.0","id":5,"method":"tools/li',
      });
      expectError(response, 400, -32700, 'absent');
      await expectStillServing();
    });

    it('answers a batch array with 400/-32600', async () => {
      const batch = [1, 2].map((id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/list',
        params: { _meta: requestMeta() },
      }));
      const response = await mcpPost(url, { method: 'tools/list', rawBody: JSON.stringify(batch) });
      expectError(response, 400, -32600, 'absent');
      await expectStillServing();
    });

    it('answers 400/-32600 to a request whose id is null', async () => {
      const response = await mcpPost(url, {
        method: 'tools/list',
        rawBody: JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/list', params: { _meta: requestMeta() } }),
      });
      expectError(response, 400, -32600, 'absent');
      await expectStillServing();
    });

    it('answers 400/-32600 to a JSON-RPC response posted by the client, echoing its id', async () => {
      const response = await mcpPost(url, {
        method: 'tools/list',
        rawBody: JSON.stringify({ jsonrpc: '2.0', id: 'answer-1', result: { resultType: 'complete' } }),
      });
      expectError(response, 400, -32600, 'echoed');
      await expectStillServing();
    });

    it('answers 400/-32600 to a message that is not a JSON-RPC 2.0 request, echoing its id', async () => {
      const response = await mcpPost(url, {
        method: 'tools/list',
        rawBody: JSON.stringify({ jsonrpc: '1.0', id: 31, method: 'tools/list', params: { _meta: requestMeta() } }),
      });
      expectError(response, 400, -32600, 'either');
      expect((response.json as { id?: unknown }).id).toBe(31);
    });
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Sending Messages"
  describe('media types', () => {
    it('answers 415 to Content-Type: text/plain', async () => {
      const response = await mcpPost(url, { method: 'tools/list', headers: { 'content-type': 'text/plain' } });
      expectError(response, 415, -32600, 'either');
      await expectStillServing();
    });

    it('answers 406 to an Accept that allows neither JSON nor SSE', async () => {
      const response = await mcpPost(url, { method: 'tools/list', headers: { accept: 'text/html' } });
      // The body is well-formed, so its id is readable and must be echoed (spec 2026-07-28: basic/index,
      // "Error Responses": omit only when unreadable).
      expectError(response, 406, -32600, 'echoed');
      await expectStillServing();
    });

    it('answers with JSON when the client accepts only application/json', async () => {
      const response = await mcpPost(url, { method: 'tools/list', headers: { accept: 'application/json' } });
      expectResult(response, 'tools/list');
    });
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Sending Messages" and "Receiving Messages"
  describe('JSON or SSE per request', () => {
    it('stays on plain JSON when a request opts in to progress and logs but nothing is emitted', async () => {
      const response = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 5, b: 6 } },
        meta: requestMeta({ progressToken: 'progress-1', 'io.modelcontextprotocol/logLevel': 'debug' }),
      });
      expect(expectResult<{ structuredContent: unknown }>(response, 'tools/call').structuredContent).toEqual({
        sum: 11,
      });
      expect(response.headers.get('content-type')).toBe('application/json');
    });

    it('answers over SSE, one final frame and X-Accel-Buffering: no, when the client accepts only text/event-stream', async () => {
      const response = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 7, b: 8 } },
        headers: { accept: 'text/event-stream' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream\b/);
      expect(response.headers.get('x-accel-buffering')).toBe('no');
      const frames = sseDataFrames(response.text).map(
        (frame) => JSON.parse(frame) as { id: unknown; result: { structuredContent: unknown } },
      );
      expect(frames).toHaveLength(1);
      assertValidServerMessage(frames[0], 'tools/call');
      expect(frames[0].id).toBe(response.sentId);
      expect(frames[0].result.structuredContent).toEqual({ sum: 15 });
    });

    // spec 2026-07-28: basic/transports/streamable-http, "Earlier Streamable HTTP Revisions"
    it('ignores Mcp-Session-Id and Last-Event-ID on a POST and never mints a session', async () => {
      const response = await mcpPost(url, {
        method: 'tools/list',
        headers: { 'mcp-session-id': 'stale-session', 'last-event-id': '42' },
      });
      expectResult(response, 'tools/list');
      expect(response.headers.get('mcp-session-id')).toBeNull();
    });

    it("accepts a 2 MiB body: the default 4 MiB limit applies, not the frameworks' own smaller defaults", async () => {
      const text = 'x'.repeat(2 * 1024 * 1024);
      const response = await mcpPost(url, { method: 'tools/call', params: { name: 'echo', arguments: { text } } });
      const result = expectResult<{ content: TextBlock[] }>(response, 'tools/call');
      expect(result.content[0].text.endsWith(text)).toBe(true);
    });
  });

  describe('JSON-RPC errors inside a 200 answer', () => {
    it('answers an unknown tool with 200 and -32602 (not isError)', async () => {
      const response = await mcpPost(url, { method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
      expectError(response, 200, -32602);
      await expectStillServing();
    });

    it.each([
      'not-a-cursor',
      Buffer.from('prompts:0').toString('base64url'),
      Buffer.from('tools:999').toString('base64url'),
    ])('answers an invalid tools/list cursor (%s) with -32602', async (cursor) => {
      const response = await mcpPost(url, { method: 'tools/list', params: { cursor } });
      expectError(response, 200, -32602);
      await expectStillServing();
    });

    // spec 2026-07-28: server/resources, "Error Handling"
    it('answers a missing resource with -32602 and data.uri (not -32002)', async () => {
      const response = await mcpPost(url, { method: 'resources/read', params: { uri: 'catalog://nothing-here' } });
      const error = expectError(response, 200, -32602);
      expect(error.data).toMatchObject({ uri: 'catalog://nothing-here' });
      await expectStillServing();
    });

    it('answers an unknown prompt with -32602', async () => {
      const response = await mcpPost(url, { method: 'prompts/get', params: { name: 'noSuchPrompt' } });
      expectError(response, 200, -32602);
    });
  });
});

describe.each(ADAPTERS)('request body limit (%s)', (adapter) => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(adapter, { imports: [SmallBodyModule] });
  });
  afterAll(async () => {
    await running?.close();
  });

  it(`serves a body under ${SMALL_BODY_LIMIT} bytes`, async () => {
    const response = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'note', arguments: { text: 'x'.repeat(100) } },
    });
    expect(response.status, response.text).toBe(200);
    assertValidServerMessage(response.json, 'tools/call');
    expect(response.json).toMatchObject({ result: { content: [{ type: 'text', text: 'note of 100 characters' }] } });
  });

  it(`answers 413 to a body over ${SMALL_BODY_LIMIT} bytes, then keeps serving`, async () => {
    const response = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'note', arguments: { text: 'x'.repeat(4 * SMALL_BODY_LIMIT) } },
    });
    expectError(response, 413, -32600, 'either');
    const next = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'note', arguments: { text: 'ok' } },
    });
    expect(next.status).toBe(200);
    assertValidServerMessage(next.json, 'tools/call');
  });
});
