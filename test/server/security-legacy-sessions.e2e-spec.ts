import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { McpModuleOptions } from 'nest-mcp';
import { legacySecurityModule } from '../fixtures/legacy-security.fixture.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../support/app.factory.js';
import { forkFixtureServer } from '../support/forked-server.js';
import { connectLegacyClient, LEGACY_VERSION } from '../support/legacy-client.factory.js';
import { assertValidLegacyServerMessage } from '../support/legacy-schema.validator.js';
import { mcpPost, PROTOCOL_VERSION } from '../support/raw-request.util.js';
import { modernMeta, startInProcessStdio, type InProcessStdio } from '../support/stdio.harness.js';
import { sleep } from '../support/wait.util.js';
import { assertValidServerMessage } from '../support/wire-schema.validator.js';

/**
 * 2025-11-25 sessions under attack (issue #13, items 1 and 6): a session keeps only bounded copies of what
 * `initialize` declared, `initialize` params above `maxInitializeBytes` are refused (413, -32602), the bytes sessions
 * hold are bounded in total (`maxSessionBytes`, 503), sessions are capped per principal and per remote address as
 * well as in total (429 / 503 with `Retry-After`), `resources/subscribe` is bounded per session, and
 * `legacyWire: false` turns the 2025-11-25 wire off on HTTP and stdio. The memory claims are measured on a real
 * server process.
 */

/** The JSON-RPC code of a refusal for load, as for listen streams and calls in flight. */
const OVERLOADED = -32603;
const INVALID_PARAMS = -32602;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The JSON body, if any. */
  body?: { id?: unknown; result?: Record<string, any>; error?: { code: number; message: string; data?: any } };
}

/** What one raw exchange sends: verb, body, headers, and the local address the connection comes from. */
interface Exchange {
  verb?: 'POST' | 'GET' | 'DELETE';
  body?: string;
  headers?: Record<string, string>;
  localAddress?: string;
}

/** One exchange through `node:http` (which, unlike `fetch`, can pick the local address), read to its end. */
function send(url: URL, exchange: Exchange): Promise<Answer> {
  const verb = exchange.verb ?? 'POST';
  const headers: Record<string, string> = {
    accept: verb === 'POST' ? 'application/json, text/event-stream' : 'text/event-stream',
    ...(exchange.body !== undefined && {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(exchange.body)),
    }),
    ...exchange.headers,
  };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method: verb, headers, localAddress: exchange.localAddress, agent: false },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Answer['body'];
          try {
            body = text.length > 0 ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, body });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(exchange.body);
  });
}

let nextId = 1;

/** The body of a 2025-11-25 `initialize`. */
function initializeBody(
  capabilities: unknown = {},
  clientInfo: unknown = { name: 'security-e2e', version: '1.0.0' },
): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: `init-${nextId++}`,
    method: 'initialize',
    params: { protocolVersion: LEGACY_VERSION, capabilities, clientInfo },
  });
}

/** Who sends: a principal (`x-user`) and/or the local address of the connection. */
interface Caller {
  user?: string;
  localAddress?: string;
}

const callerHeaders = (caller: Caller): Record<string, string> =>
  caller.user !== undefined ? { 'x-user': caller.user } : {};

/** A raw `initialize` as a 2025-11-25 client sends it (no version header), then `notifications/initialized` on success. */
async function initialize(
  url: URL,
  caller: Caller = {},
  body = initializeBody(),
): Promise<{ answer: Answer; sessionId?: string }> {
  const answer = await send(url, { body, headers: callerHeaders(caller), localAddress: caller.localAddress });
  if (answer.body) assertValidLegacyServerMessage(answer.body, 'initialize');
  const sessionId = answer.headers['mcp-session-id'];
  if (answer.status !== 200 || typeof sessionId !== 'string') return { answer };
  const initialized = await session(url, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' }, caller);
  expect(initialized.status).toBe(202);
  return { answer, sessionId };
}

/** A POST of the session, as a 2025-11-25 client sends it after `initialize`. */
async function session(
  url: URL,
  sessionId: string,
  message: Record<string, unknown>,
  caller: Caller = {},
): Promise<Answer> {
  const answer = await send(url, {
    body: JSON.stringify(message),
    headers: { 'mcp-protocol-version': LEGACY_VERSION, 'mcp-session-id': sessionId, ...callerHeaders(caller) },
    localAddress: caller.localAddress,
  });
  if (answer.body)
    assertValidLegacyServerMessage(answer.body, typeof message.method === 'string' ? message.method : undefined);
  return answer;
}

/** `ping` on a session: 200 `{}` while the session lives. */
async function expectAlive(url: URL, sessionId: string, caller: Caller = {}): Promise<void> {
  const pong = await session(url, sessionId, { jsonrpc: '2.0', id: 'ping', method: 'ping' }, caller);
  expect(pong.status, pong.text).toBe(200);
  expect(pong.body?.result).toEqual({});
}

/** DELETE of a session: 204. */
async function end(url: URL, sessionId: string, caller: Caller = {}): Promise<void> {
  const answer = await send(url, {
    verb: 'DELETE',
    headers: { 'mcp-protocol-version': LEGACY_VERSION, 'mcp-session-id': sessionId, ...callerHeaders(caller) },
    localAddress: caller.localAddress,
  });
  expect(answer.status).toBe(204);
}

/** A refused `initialize`: status, `Retry-After`, JSON-RPC -32603, the option named, no session id. */
function expectRefused(answer: Answer, status: 429 | 503, option: string): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  expect(answer.body?.error?.code).toBe(OVERLOADED);
  expect(answer.body?.error?.message).toContain(option);
  expect(answer.body?.id).toEqual(expect.any(String));
  expect(answer.headers['mcp-session-id']).toBeUndefined();
}

/** A JSON-RPC error in a 200 answer of a session method, with its code. */
function expectSessionError(answer: Answer, code: number): string {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body?.error?.code, answer.text).toBe(code);
  return answer.body!.error!.message;
}

/** `{ experimental: { junk: [{}, {}, …] } }`, whose JSON is about `bytes` long. */
function junkCapabilities(bytes: number): Record<string, unknown> {
  return { experimental: { junk: Array.from({ length: Math.floor(bytes / 3) }, () => ({})) } };
}

describe.each(ADAPTERS)('2025-11-25 initialize params (%s)', (adapter) => {
  let running: RunningApp;
  afterEach(async () => {
    await running?.close();
  });

  it('refuses params over maxInitializeBytes with 413 and -32602 naming the limit and the option; the next initialize succeeds', async () => {
    running = await startApp(adapter, { imports: [legacySecurityModule({ maxInitializeBytes: 2048 })] });
    const body = initializeBody(junkCapabilities(4096));
    const refused = await send(running.mcpUrl, { body });
    expect(refused.status, refused.text).toBe(413);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    assertValidLegacyServerMessage(refused.body, 'initialize');
    expect(refused.body?.id).toBe(JSON.parse(body).id);
    expect(refused.body?.error?.code).toBe(INVALID_PARAMS);
    expect(refused.body?.error?.message).toContain('2048');
    expect(refused.body?.error?.message).toContain('maxInitializeBytes');
    expect(refused.headers['mcp-session-id']).toBeUndefined();

    const { answer, sessionId } = await initialize(running.mcpUrl);
    expect(answer.status).toBe(200);
    await expectAlive(running.mcpUrl, sessionId!);
  });

  it('has a default limit of 8 KiB: 9 KiB of params are refused, 7 KiB are served', async () => {
    running = await startApp(adapter, { imports: [legacySecurityModule()] });
    const refused = await send(running.mcpUrl, { body: initializeBody(junkCapabilities(9 * 1024)) });
    expect(refused.status, refused.text).toBe(413);
    expect(refused.body?.error?.code).toBe(INVALID_PARAMS);
    expect(refused.body?.error?.message).toContain('8192');

    const { answer, sessionId } = await initialize(running.mcpUrl, {}, initializeBody(junkCapabilities(7 * 1024)));
    expect(answer.status, answer.text).toBe(200);
    await expectAlive(running.mcpUrl, sessionId!);
  });

  it('keeps bounded copies of what the server reads: capabilities by presence, clientInfo name/version/title truncated', async () => {
    running = await startApp(adapter, { imports: [legacySecurityModule()] });
    const capabilities = {
      elicitation: { form: {}, url: {}, extra: 'x'.repeat(500) },
      sampling: { tools: {}, context: {}, junk: [1, 2, 3] },
      roots: { listChanged: true, more: { deep: true } },
      experimental: { anything: { a: 1 } },
      tasks: { list: {} },
    };
    const clientInfo = {
      name: 'n'.repeat(1000),
      version: '1.2.3',
      title: 'Title',
      description: 'd'.repeat(200),
      icons: [{ src: 'data:,x' }],
    };
    const { sessionId } = await initialize(running.mcpUrl, {}, initializeBody(capabilities, clientInfo));
    const call = await session(running.mcpUrl, sessionId!, {
      jsonrpc: '2.0',
      id: 'view',
      method: 'tools/call',
      params: { name: 'clientView', arguments: {} },
    });
    expect(call.status, call.text).toBe(200);
    const view = JSON.parse(call.body!.result!.content[0].text);
    expect(view.capabilities).toEqual({
      elicitation: { form: {}, url: {} },
      sampling: { tools: {}, context: {} },
      roots: { listChanged: true },
    });
    expect(view.clientInfo).toEqual({ name: 'n'.repeat(256), version: '1.2.3', title: 'Title' });

    // `elicitation: {}` means form mode only; a bare `roots` declares no listChanged.
    const plain = await initialize(
      running.mcpUrl,
      {},
      initializeBody({ elicitation: {}, roots: {} }, { name: 'c', version: '1' }),
    );
    const plainView = await session(running.mcpUrl, plain.sessionId!, {
      jsonrpc: '2.0',
      id: 'view',
      method: 'tools/call',
      params: { name: 'clientView', arguments: {} },
    });
    expect(JSON.parse(plainView.body!.result!.content[0].text)).toEqual({
      capabilities: { elicitation: { form: {} }, roots: {} },
      clientInfo: { name: 'c', version: '1' },
    });
  });
});

describe.each(ADAPTERS)('2025-11-25 session caps per principal, per address and in bytes (%s)', (adapter) => {
  let running: RunningApp;
  afterEach(async () => {
    await running?.close();
  });

  const start = async (options: Partial<McpModuleOptions>) => {
    running = await startApp(adapter, { imports: [legacySecurityModule(options)] });
    return running.mcpUrl;
  };

  it('refuses the N+1th anonymous session from one address with 429 while another address still gets one; DELETE frees the slot', async () => {
    const url = await start({ maxSessionsPerAddress: 2 });
    const first = { localAddress: '127.0.0.1' };
    const other = { localAddress: '127.0.0.2' };
    const a = await initialize(url, first);
    const b = await initialize(url, first);
    expect([a.answer.status, b.answer.status]).toEqual([200, 200]);

    const refused = await initialize(url, first);
    expectRefused(refused.answer, 429, 'maxSessionsPerAddress');
    expect(refused.answer.body?.error?.message).toContain('2');

    const elsewhere = await initialize(url, other);
    expect(elsewhere.answer.status, elsewhere.answer.text).toBe(200);
    await expectAlive(url, a.sessionId!, first);

    await end(url, a.sessionId!, first);
    const again = await initialize(url, first);
    expect(again.answer.status, again.answer.text).toBe(200);
    await expectAlive(url, again.sessionId!, first);
  });

  it('refuses the N+1th session of one principal with 429 wherever it connects from, while another principal still gets one', async () => {
    const url = await start({ maxSessionsPerPrincipal: 2, maxSessionsPerAddress: 1 });
    const alice = { user: 'alice', localAddress: '127.0.0.1' };
    const a = await initialize(url, alice);
    const b = await initialize(url, alice);
    // A principal is counted by principal, not by the address its connection shares with anonymous callers.
    expect([a.answer.status, b.answer.status]).toEqual([200, 200]);

    expectRefused((await initialize(url, alice)).answer, 429, 'maxSessionsPerPrincipal');
    expectRefused(
      (await initialize(url, { user: 'alice', localAddress: '127.0.0.3' })).answer,
      429,
      'maxSessionsPerPrincipal',
    );
    const bob = await initialize(url, { user: 'bob', localAddress: '127.0.0.1' });
    expect(bob.answer.status, bob.answer.text).toBe(200);
    const anonymous = await initialize(url, { localAddress: '127.0.0.1' });
    expect(anonymous.answer.status, anonymous.answer.text).toBe(200);

    await end(url, b.sessionId!, alice);
    const again = await initialize(url, alice);
    expect(again.answer.status, again.answer.text).toBe(200);
    await expectAlive(url, a.sessionId!, alice);
  });

  it('gives the slot back when a session expires', async () => {
    const url = await start({ maxSessionsPerAddress: 1, sessionIdleMs: 200 });
    expect((await initialize(url)).answer.status).toBe(200);
    expectRefused((await initialize(url)).answer, 429, 'maxSessionsPerAddress');
    await sleep(450);
    const after = await initialize(url);
    expect(after.answer.status, after.answer.text).toBe(200);
    await expectAlive(url, after.sessionId!);
  });

  it('keeps the total cap (503) and names maxSessions', async () => {
    const url = await start({ maxSessions: 2 });
    expect((await initialize(url, { localAddress: '127.0.0.1' })).answer.status).toBe(200);
    expect((await initialize(url, { localAddress: '127.0.0.2' })).answer.status).toBe(200);
    expectRefused((await initialize(url, { localAddress: '127.0.0.3' })).answer, 503, 'maxSessions');
  });

  it('bounds the bytes sessions hold (maxSessionBytes): subscriptions and new sessions are refused, DELETE gives the bytes back', async () => {
    const url = await start({ maxSessionBytes: 64 * 1024 });
    const { sessionId } = await initialize(url);
    const subscribe = (uri: string) =>
      session(url, sessionId!, {
        jsonrpc: '2.0',
        id: `sub-${nextId++}`,
        method: 'resources/subscribe',
        params: { uri },
      });

    // Long URIs, then short ones, until the budget is exhausted.
    let refusal: Answer | undefined;
    for (const length of [8000, 100]) {
      for (let i = 0; i < 1000 && !refusal; i++) {
        const answer = await subscribe(`watch://root/${String(i).padStart(4, '0')}/${'x'.repeat(length)}`);
        if (answer.body?.error) refusal = answer;
      }
      if (length === 8000) refusal = undefined;
    }
    expect(refusal, 'the budget refused a subscription').toBeDefined();
    expect(expectSessionError(refusal!, OVERLOADED)).toContain('maxSessionBytes');
    await expectAlive(url, sessionId!);

    expectRefused((await initialize(url, { localAddress: '127.0.0.2' })).answer, 503, 'maxSessionBytes');

    await end(url, sessionId!);
    const next = await initialize(url, { localAddress: '127.0.0.2' });
    expect(next.answer.status, next.answer.text).toBe(200);
    await expectAlive(url, next.sessionId!, { localAddress: '127.0.0.2' });
  });
});

describe.each(ADAPTERS)('resources/subscribe bound per session (%s)', (adapter) => {
  let running: RunningApp;
  let sessionId: string;
  beforeEach(async () => {
    running = await startApp(adapter, { imports: [legacySecurityModule()] });
    sessionId = (await initialize(running.mcpUrl)).sessionId!;
  });
  afterEach(async () => {
    await running?.close();
  });

  const subscribe = (uri: string, method = 'resources/subscribe') =>
    session(running.mcpUrl, sessionId, { jsonrpc: '2.0', id: `sub-${nextId++}`, method, params: { uri } });

  it('accepts 1000 URIs (the 2026 listen filter bound), refuses the 1001st with -32602, and the session keeps working', async () => {
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => subscribe(`watch://root/${batch * 50 + i}`)),
      );
      for (const answer of answers) expect(answer.body?.result, answer.text).toEqual({});
    }
    const message = expectSessionError(await subscribe('watch://root/one-more'), INVALID_PARAMS);
    expect(message).toContain('1000');

    // Subscribing again to a held URI changes nothing; after an unsubscribe there is room for one more.
    expect((await subscribe('watch://root/7')).body?.result).toEqual({});
    expect((await subscribe('watch://root/7', 'resources/unsubscribe')).body?.result).toEqual({});
    expect((await subscribe('watch://root/one-more')).body?.result).toEqual({});
    await expectAlive(running.mcpUrl, sessionId);
  });

  it('refuses a URI longer than 8192 characters, and URIs beyond the bytes a session may hold, with -32602', async () => {
    expect(expectSessionError(await subscribe(`watch://root/${'x'.repeat(8192)}`), INVALID_PARAMS)).toContain('8192');
    await expectAlive(running.mcpUrl, sessionId);

    let refused: Answer | undefined;
    for (let i = 0; i < 1000 && !refused; i++) {
      const answer = await subscribe(`watch://root/${i}/${'y'.repeat(8000)}`);
      if (answer.body?.error) refused = answer;
    }
    expect(refused, 'a subscription refused before the count bound').toBeDefined();
    expect(expectSessionError(refused!, INVALID_PARAMS)).toMatch(/bytes/);
    await expectAlive(running.mcpUrl, sessionId);
    expect((await subscribe('watch://root/short')).body?.result).toEqual({});
  });
});

describe.each(ADAPTERS)('legacyWire: false (%s)', (adapter) => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(adapter, { imports: [legacySecurityModule({ legacyWire: false })] });
  });
  afterAll(async () => {
    await running?.close();
  });

  it('the official 2025-11-25 client cannot connect', async () => {
    await expect(connectLegacyClient(running.mcpUrl)).rejects.toThrow();
  });

  it('a raw initialize gets the 2026-only answer (400, -32020 for the missing 2026 headers) and no session', async () => {
    const answer = await send(running.mcpUrl, { body: initializeBody() });
    expect(answer.status, answer.text).toBe(400);
    assertValidServerMessage(answer.body);
    expect(answer.body?.error?.code).toBe(-32020);
    expect(answer.body?.error?.message).toMatch(/MCP-Protocol-Version/);
    expect(answer.headers['mcp-session-id']).toBeUndefined();

    // With the 2025-11-25 version header it is still a request without the 2026 headers and envelope.
    const versioned = await send(running.mcpUrl, {
      body: initializeBody(),
      headers: { 'mcp-protocol-version': LEGACY_VERSION },
    });
    expect(versioned.status, versioned.text).toBe(400);
    expect(versioned.body?.error?.code).toBe(-32020);
    expect(versioned.headers['mcp-session-id']).toBeUndefined();

    // With the 2026 envelope and headers: -32601, as on a server that serves both wires.
    const enveloped = await mcpPost(running.mcpUrl, {
      method: 'initialize',
      params: { protocolVersion: LEGACY_VERSION, capabilities: {} },
    });
    expect(enveloped.status).toBe(404);
    expect((enveloped.json as { error: { code: number } }).error.code).toBe(-32601);
  });

  it.each(['GET', 'DELETE'] as const)('%s with a session id gets 405, as on a 2026-only server', async (verb) => {
    const answer = await send(running.mcpUrl, {
      verb,
      headers: { 'mcp-protocol-version': LEGACY_VERSION, 'mcp-session-id': 'some-session' },
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
  });

  it('a POST in 2025-11-25 style (session id, no 2026 headers) gets the 2026 answer; the 2026 wire keeps serving', async () => {
    const ping = await send(running.mcpUrl, {
      body: JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping' }),
      headers: { 'mcp-protocol-version': LEGACY_VERSION, 'mcp-session-id': 'some-session' },
    });
    expect(ping.status, ping.text).toBe(400);
    assertValidServerMessage(ping.body);
    expect(ping.body?.error?.code).toBe(-32020);

    // Nothing offers a revision the server no longer speaks: server/discover and -32022 list 2026-07-28 only.
    const discover = await mcpPost(running.mcpUrl, { method: 'server/discover' });
    expect(discover.status).toBe(200);
    assertValidServerMessage(discover.json, 'server/discover');
    expect((discover.json as { result: { supportedVersions: string[] } }).result.supportedVersions).toEqual([
      PROTOCOL_VERSION,
    ]);
    const tools = await mcpPost(running.mcpUrl, { method: 'tools/list' });
    expect(tools.status).toBe(200);
  });
});

describe('legacyWire: false on stdio', () => {
  let stdio: InProcessStdio;
  afterEach(async () => {
    await stdio?.close();
  });

  it('answers initialize as a 2026-only server does (-32602 for the missing _meta, 2025-11-25 not offered) and keeps serving 2026 requests', async () => {
    stdio = await startInProcessStdio({ imports: [legacySecurityModule({ legacyWire: false })] });
    stdio.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    const init = await stdio.output.response('init');
    expect(init.result).toBeUndefined();
    expect(init.error.code).toBe(INVALID_PARAMS);
    expect(init.error.message).toContain(PROTOCOL_VERSION);
    expect(init.error.message).not.toContain('after initialize');

    // No session was made: a session-style request is still refused the same way.
    stdio.send({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
    expect((await stdio.output.response('ping')).error.code).toBe(INVALID_PARAMS);

    expect(init.error.data.supported).toEqual([PROTOCOL_VERSION]);
    stdio.send({ jsonrpc: '2.0', id: 'discover', method: 'server/discover', params: { _meta: modernMeta() } });
    const discover = (await stdio.output.response('discover')).result;
    expect(discover.resultType).toBe('complete');
    expect(discover.supportedVersions).toEqual([PROTOCOL_VERSION]);
    stdio.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: { _meta: modernMeta() } });
    expect((await stdio.output.response('list')).result.tools).toHaveLength(1);
  });

  it('still serves a 2025-11-25 session on stdio by default, with bounded copies and the initialize size limit', async () => {
    stdio = await startInProcessStdio({ imports: [legacySecurityModule()] });
    stdio.send({
      jsonrpc: '2.0',
      id: 'big',
      method: 'initialize',
      params: { protocolVersion: LEGACY_VERSION, capabilities: junkCapabilities(9 * 1024) },
    });
    const big = await stdio.output.response('big');
    expect(big.error.code).toBe(INVALID_PARAMS);
    expect(big.error.message).toContain('maxInitializeBytes');

    stdio.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: {
        protocolVersion: LEGACY_VERSION,
        capabilities: { sampling: { junk: 1 } },
        clientInfo: { name: 'c', version: '1', icons: [] },
      },
    });
    expect((await stdio.output.response('init')).result.protocolVersion).toBe(LEGACY_VERSION);
    stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    stdio.send({ jsonrpc: '2.0', id: 'view', method: 'tools/call', params: { name: 'clientView', arguments: {} } });
    const view = JSON.parse((await stdio.output.response('view')).result.content[0].text);
    expect(view).toEqual({ capabilities: { sampling: {} }, clientInfo: { name: 'c', version: '1' } });
  });
});

/** A server process forked with `--expose-gc`, that reports its memory over IPC. */
interface ServerProcess {
  url: URL;
  /** Heap, external and array buffer bytes after a full collection. */
  retained(): Promise<number>;
  kill(): void;
}

async function forkServer(adapter: AdapterName, options: Partial<McpModuleOptions>): Promise<ServerProcess> {
  const server = await forkFixtureServer('test/fixtures/legacy-memory-main.fixture.ts', [
    adapter,
    JSON.stringify(options),
  ]);
  return {
    url: server.url,
    retained: async () => {
      const { heapUsed, external, arrayBuffers } = await server.ask<{
        heapUsed: number;
        external: number;
        arrayBuffers: number;
      }>('measure', 'memory');
      return heapUsed + external + arrayBuffers;
    },
    kill: () => server.kill(),
  };
}

describe.each(ADAPTERS)('memory of a real server process under initialize floods (%s)', (adapter) => {
  let server: ServerProcess;
  beforeAll(async () => {
    // A body limit large enough that the flood reaches the legacy wire, and room for every accepted-size session.
    server = await forkServer(adapter, { maxBodyBytes: 8 * 1024 * 1024, maxSessionsPerAddress: 1000 });
  }, 60_000);
  afterAll(() => server?.kill());

  it('stays bounded: 12 initializes with ~3 MB of capabilities and 200 accepted-size ones hold no client objects', async () => {
    const warm = await initialize(server.url);
    await expectAlive(server.url, warm.sessionId!);
    const before = await server.retained();

    const huge = initializeBody(junkCapabilities(3 * 1024 * 1024));
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await send(server.url, { body: huge })).status);
    const accepted: number[] = [];
    for (let i = 0; i < 200; i++)
      accepted.push((await send(server.url, { body: initializeBody(junkCapabilities(7 * 1024)) })).status);

    const growth = (await server.retained()) - before;
    expect(growth, `retained ${(growth / 1024 / 1024).toFixed(1)} MiB more`).toBeLessThan(16 * 1024 * 1024);
    expect(new Set(statuses)).toEqual(new Set([413]));
    expect(new Set(accepted)).toEqual(new Set([200]));

    const after = await initialize(server.url);
    expect(after.answer.status).toBe(200);
    await expectAlive(server.url, after.sessionId!);
  }, 120_000);
});
