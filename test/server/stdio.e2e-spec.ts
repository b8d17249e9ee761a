import { McpPublisher } from 'nest-mcp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StdioFixtureModule, StdioFixtureProbe } from '../fixtures/stdio.fixture.js';
import { modernMeta, startInProcessStdio, type InProcessStdio, type WireMessage } from '../support/stdio.harness.js';

/**
 * The stdio transport in this process, on PassThrough streams: what a client writes to stdin and reads from stdout,
 * line by line. The same app as a real child process is in stdio-process.e2e-spec.ts.
 */
describe('stdio transport', () => {
  let stdio: InProcessStdio;
  let nextId = 1;

  beforeEach(async () => {
    stdio = await startInProcessStdio({ imports: [StdioFixtureModule] });
    StdioFixtureProbe.cancelled = [];
  });

  afterEach(async () => {
    await stdio.close();
  });

  /** Sends a 2026-07-28 request and resolves with its response. */
  function request(
    method: string,
    params: Record<string, unknown> = {},
    meta: Record<string, unknown> = {},
    capabilities = {},
  ): Promise<WireMessage> {
    const id = nextId++;
    stdio.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta(meta, capabilities) } });
    return stdio.output.response(id);
  }

  const progressOf = (token: string | number) =>
    stdio.output.messages
      .filter((message) => message.method === 'notifications/progress' && message.params.progressToken === token)
      .map((message) => message.params);

  describe('2026-07-28 requests', () => {
    it('serves server/discover and a tool call, its progress first, each message on its own line', async () => {
      const discover = await request('server/discover');
      expect(discover.result).toMatchObject({
        resultType: 'complete',
        supportedVersions: ['2026-07-28', '2025-11-25'],
      });

      const call = await request('tools/call', { name: 'count', arguments: { n: 3 } }, { progressToken: 'p-1' });
      expect(call.result).toMatchObject({ resultType: 'complete', structuredContent: { counted: 3 } });
      expect(progressOf('p-1')).toEqual(
        [1, 2, 3].map((progress) => ({
          progressToken: 'p-1',
          progress,
          total: 3,
          message: `counted ${progress} of 3`,
        })),
      );
      const lines = stdio.output.lines;
      expect(lines.indexOf(JSON.stringify(call))).toBeGreaterThan(
        lines.findLastIndex((line) => line.includes('"p-1"')),
      );
      for (const line of lines) expect(JSON.parse(line).jsonrpc).toBe('2.0');
    });

    it('checks _meta on every request: -32602 without it (naming the versions), -32022 for an unknown version', async () => {
      stdio.send({ jsonrpc: '2.0', id: 'bare', method: 'tools/list' });
      const bare = await stdio.output.response('bare');
      expect(bare.error).toMatchObject({ code: -32602, data: { supported: ['2026-07-28', '2025-11-25'] } });
      expect(bare.error.message).toMatch(/2026-07-28.*2025-11-25 after initialize/);

      stdio.send({
        jsonrpc: '2.0',
        id: 'no-caps',
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      });
      expect((await stdio.output.response('no-caps')).error.code).toBe(-32602);

      stdio.send({
        jsonrpc: '2.0',
        id: 'probe',
        method: 'server/discover',
        params: { _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }) },
      });
      expect((await stdio.output.response('probe')).error).toEqual({
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28', '2025-11-25'], requested: '1900-01-01' },
      });

      stdio.send({
        jsonrpc: '2.0',
        id: 'legacy-version',
        method: 'tools/list',
        params: { _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }) },
      });
      expect((await stdio.output.response('legacy-version')).error.code).toBe(-32022);

      expect((await request('ping')).error.code).toBe(-32601);
    });

    it('answers malformed lines with an error and keeps serving', async () => {
      stdio.send('{"jsonrpc":"2.0", "id": 1, "method": "tools/li');
      stdio.send('[{"jsonrpc":"2.0","id":7,"method":"tools/list"}]');
      stdio.send({ jsonrpc: '1.0', id: 8, method: 'tools/list' });
      stdio.send({ jsonrpc: '2.0', method: 'tools/list', params: 'not an object' });
      stdio.send({ jsonrpc: '2.0', id: null, method: 'tools/list' });
      stdio.send(`${'['.repeat(100)}${']'.repeat(100)}`);
      stdio.send({ jsonrpc: '2.0', method: 'notifications/whatever' }); // a well-formed unknown notification: ignored
      stdio.send({ jsonrpc: '2.0', id: 'nobody', result: {} }); // a response nobody waits for: dropped
      const list = await request('tools/list');
      expect(list.result.tools.map((tool: { name: string }) => tool.name)).toContain('count');

      const errors = stdio.output.messages.filter((message) => 'error' in message);
      expect(errors.map((message) => [message.id, message.error.code])).toEqual([
        [undefined, -32700],
        [undefined, -32600],
        [8, -32600],
        [undefined, -32600],
        [undefined, -32600],
        [undefined, -32600],
      ]);
      expect(errors[5].error.message).toMatch(/nested deeper than 64/);
      expect(stdio.output.messages).toHaveLength(errors.length + 1);
    });

    it('refuses a second request with the id of one still in flight', async () => {
      stdio.send({
        jsonrpc: '2.0',
        id: 'dup',
        method: 'tools/call',
        params: { name: 'wait_for_cancel', _meta: modernMeta() },
      });
      stdio.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/list', params: { _meta: modernMeta() } });
      const refused = await stdio.output.waitFor((message) => message.id === 'dup' && 'error' in message);
      expect(refused.error).toMatchObject({ code: -32600, message: expect.stringMatching(/still in flight/) });
      stdio.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'dup' } });
    });

    it('notifications/cancelled aborts ctx.signal, and nothing more is written for that request', async () => {
      stdio.send({
        jsonrpc: '2.0',
        id: 'long',
        method: 'tools/call',
        params: { name: 'wait_for_cancel', _meta: modernMeta({ progressToken: 'w' }) },
      });
      await stdio.output.waitFor((message) => message.params?.progressToken === 'w');
      stdio.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nonexistent' } });
      stdio.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: { bad: true } } });
      stdio.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 'long', reason: 'user pressed stop' },
      });
      await expect.poll(() => StdioFixtureProbe.cancelled).toEqual(['long']);
      // A request sent after the cancel is answered; the cancelled one never is.
      await request('tools/list');
      expect(stdio.output.messages.filter((message) => message.id === 'long')).toEqual([]);
    });

    it('subscriptions/listen: the acknowledgement first, then tagged changes, interleaved with other calls', async () => {
      const publisher = stdio.moduleRef.get(McpPublisher);
      stdio.send({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: {
          _meta: modernMeta(),
          notifications: { toolsListChanged: true, resourceSubscriptions: ['fixture://readme'] },
        },
      });
      const ack = await stdio.output.waitFor(
        (message) => message.method === 'notifications/subscriptions/acknowledged',
      );
      expect(ack.params).toEqual({
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' },
        notifications: { toolsListChanged: true, resourceSubscriptions: ['fixture://readme'] },
      });

      const call = request(
        'tools/call',
        { name: 'count', arguments: { n: 5, delayMs: 5 } },
        { progressToken: 'during-listen' },
      );
      await stdio.output.waitFor((message) => message.params?.progressToken === 'during-listen');
      await publisher.toolsListChanged();
      await publisher.resourceUpdated('fixture://readme');
      await publisher.resourceUpdated('fixture://other'); // not subscribed
      await call;

      const tagged = stdio.output.messages.filter(
        (message) => message.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 'listen-1',
      );
      expect(tagged.map((message) => message.method)).toEqual([
        'notifications/subscriptions/acknowledged',
        'notifications/tools/list_changed',
        'notifications/resources/updated',
      ]);
      expect(tagged[2].params.uri).toBe('fixture://readme');
      // Progress never travels on the listen stream, and the call's progress interleaved with the changes.
      expect(progressOf('during-listen')).toHaveLength(5);
      const firstChange = stdio.output.messages.indexOf(tagged[1]);
      const lastProgress = stdio.output.messages.findLastIndex(
        (message) => message.params?.progressToken === 'during-listen',
      );
      expect(firstChange).toBeLessThan(lastProgress);

      // The client ends the subscription with notifications/cancelled: nothing more is written for it.
      stdio.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen-1' } });
      await request('tools/list');
      await publisher.toolsListChanged();
      await request('tools/list');
      expect(stdio.output.messages.filter((message) => message.id === 'listen-1')).toEqual([]);
      expect(
        stdio.output.messages.filter((message) => message.method === 'notifications/tools/list_changed'),
      ).toHaveLength(1);
    });

    it('relays a child process’s NDJSON progress with ctx.progressFrom, and nothing extra without a token', async () => {
      const withToken = await request(
        'tools/call',
        { name: 'wrap_command', arguments: { steps: 4 } },
        { progressToken: 'child' },
      );
      expect(withToken.result.content).toEqual([{ type: 'text', text: 'job output: 4 steps' }]);
      expect(progressOf('child')).toEqual(
        [1, 2, 3, 4].map((progress) => ({
          progressToken: 'child',
          progress,
          total: 4,
          message: `step ${progress} of 4`,
        })),
      );

      const before = stdio.output.messages.length;
      const withoutToken = await request('tools/call', { name: 'wrap_command', arguments: { steps: 4 } });
      expect(withoutToken.result).toEqual({ ...withToken.result });
      expect(stdio.output.messages.slice(before)).toEqual([withoutToken]);
    });
  });

  describe('the 2025-11-25 handshake', () => {
    const initialize = async (capabilities: Record<string, unknown> = { elicitation: { form: {} } }) => {
      stdio.send({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'legacy', version: '1' } },
      });
      const result = await stdio.output.response('init');
      stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return result;
    };
    const legacy = (id: string, method: string, params?: Record<string, unknown>) => {
      stdio.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
      return stdio.output.response(id);
    };

    it('makes the process one session: ping, calls with progress, legacy shapes, and modern requests still served', async () => {
      const init = await initialize();
      expect(init.result).toMatchObject({
        protocolVersion: '2025-11-25',
        serverInfo: { name: 'stdio-fixture', version: '1.0.0' },
        capabilities: { tools: { listChanged: true } },
      });
      expect(init.result).not.toHaveProperty('resultType');

      expect((await legacy('ping-1', 'ping')).result).toEqual({});
      const call = await legacy('call-1', 'tools/call', {
        name: 'count',
        arguments: { n: 2 },
        _meta: { progressToken: 'legacy-progress' },
      });
      expect(call.result).toEqual({
        content: [{ type: 'text', text: '{"counted":2}' }],
        structuredContent: { counted: 2 },
      });
      expect(progressOf('legacy-progress').map((params) => params.progress)).toEqual([1, 2]);
      expect((await legacy('read-missing', 'resources/read', { uri: 'fixture://missing' })).error.code).toBe(-32002);

      expect((await request('tools/list')).result.resultType).toBe('complete');
      const again = await legacy('init-2', 'initialize', { protocolVersion: '2025-11-25', capabilities: {} });
      expect(again.error).toMatchObject({ code: -32600, message: expect.stringMatching(/already initialized/) });
    });

    it('asks the client with a real elicitation/create request on stdout and reads the answer from stdin', async () => {
      await initialize();
      stdio.send({
        jsonrpc: '2.0',
        id: 'confirm',
        method: 'tools/call',
        params: { name: 'confirm_action', arguments: { action: 'deploy' } },
      });
      const ask = await stdio.output.waitFor((message) => message.method === 'elicitation/create');
      expect(ask.id).toEqual(expect.any(String));
      expect(ask.params).toMatchObject({ mode: 'form', message: 'Run deploy?', requestedSchema: { type: 'object' } });
      stdio.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { confirm: true, note: 'now' } } });
      expect((await stdio.output.response('confirm')).result.content).toEqual([
        { type: 'text', text: 'deploy: done (now)' },
      ]);

      stdio.send({
        jsonrpc: '2.0',
        id: 'decline',
        method: 'tools/call',
        params: { name: 'confirm_action', arguments: { action: 'drop' } },
      });
      const second = await stdio.output.waitFor(
        (message) => message.method === 'elicitation/create' && message.id !== ask.id,
      );
      stdio.send({ jsonrpc: '2.0', id: second.id, result: { action: 'decline' } });
      expect((await stdio.output.response('decline')).result.content).toEqual([
        { type: 'text', text: 'drop: decline' },
      ]);
    });

    it('honours logging/setLevel, resources/subscribe and list changes for the session', async () => {
      const publisher = stdio.moduleRef.get(McpPublisher);
      await initialize({});
      expect((await legacy('level-bad', 'logging/setLevel', { level: 'loud' })).error.code).toBe(-32602);
      expect((await legacy('level', 'logging/setLevel', { level: 'info' })).result).toEqual({});
      await legacy('notes', 'tools/call', { name: 'notes', arguments: { text: 'hi' } });
      const logs = stdio.output.messages.filter((message) => message.method === 'notifications/message');
      expect(logs.map((message) => message.params)).toEqual([{ level: 'info', logger: 'notes', data: { note: 'hi' } }]);

      expect((await legacy('sub', 'resources/subscribe', { uri: 'fixture://readme' })).result).toEqual({});
      await publisher.resourceUpdated('fixture://readme');
      await publisher.toolsListChanged();
      await legacy('ping-2', 'ping');
      const changes = stdio.output.messages.filter(
        (message) => message.method?.startsWith('notifications/') && message.method !== 'notifications/message',
      );
      expect(changes).toEqual([
        { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'fixture://readme' } },
        { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      ]);
    });

    it('cancels a session call with notifications/cancelled', async () => {
      await initialize();
      stdio.send({
        jsonrpc: '2.0',
        id: 'wait',
        method: 'tools/call',
        params: { name: 'wait_for_cancel', _meta: { progressToken: 'lw' } },
      });
      await stdio.output.waitFor((message) => message.params?.progressToken === 'lw');
      stdio.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'wait' } });
      await expect.poll(() => StdioFixtureProbe.cancelled).toEqual(['wait']);
      await legacy('after', 'ping');
      expect(stdio.output.messages.filter((message) => message.id === 'wait')).toEqual([]);
    });
  });

  describe('shutdown', () => {
    it('when stdin ends, answers the calls in flight, ends listen streams, then closes', async () => {
      stdio.send({
        jsonrpc: '2.0',
        id: 'slow',
        method: 'tools/call',
        params: { name: 'count', arguments: { n: 4, delayMs: 30 }, _meta: modernMeta() },
      });
      // The last line has no newline: it still counts.
      stdio.sendRaw(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'listen',
          method: 'subscriptions/listen',
          params: { _meta: modernMeta(), notifications: { toolsListChanged: true } },
        }),
      );
      stdio.endInput();
      await stdio.server.closed;
      expect((await stdio.output.response('slow', 1)).result.structuredContent).toEqual({ counted: 4 });
      expect((await stdio.output.response('listen', 1)).result).toMatchObject({
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen' },
      });
    });

    it('close() (as on SIGTERM) aborts ctx.signal and still answers', async () => {
      stdio.send({
        jsonrpc: '2.0',
        id: 'waiting',
        method: 'tools/call',
        params: { name: 'wait_for_cancel', _meta: modernMeta({ progressToken: 'x' }) },
      });
      await stdio.output.waitFor((message) => message.params?.progressToken === 'x');
      await stdio.server.close();
      expect((await stdio.output.response('waiting', 1)).result.content).toEqual([{ type: 'text', text: 'aborted' }]);
    });
  });
});
