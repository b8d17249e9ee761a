import type { Client } from '@modelcontextprotocol/client';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpTestingClient, McpTestingError } from 'nest-mcp/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rateLimitedAppModule, ReportsModule } from '../../docs/examples/ecosystem/rate-limits.module.js';
import {
  ThrottledRouteModule,
  ThrottledTaskTools,
  ThrottledTasksModule,
} from '../fixtures/ecosystem-throttler.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient, legacyPost } from '../support/legacy-client.factory.js';
import { legacyRecordingFetch } from '../support/legacy-schema.validator.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { fetchAs } from '../support/principal.util.js';
import { mcpPost } from '../support/raw-request.util.js';
import { openStream } from '../support/sse-stream.reader.js';
import { modernMeta, startInProcessStdio, type InProcessStdio } from '../support/stdio.harness.js';

/**
 * `@nestjs/throttler` on MCP calls (issue #30, docs/nest-ecosystem.md): its stock guard, registered globally or on a
 * provider, counts calls per caller (principal, else address) and per tool, honours `@Throttle` / `@SkipThrottle`
 * and named throttlers, and refuses a call over the limit as a protocol error on every transport — HTTP 429 with
 * `Retry-After` and `-32603` on 2026-07-28, the same error with HTTP 200 in a 2025-11-25 session, the same error on
 * stdio and in the testing kit. Lists, listen streams and task rounds are not counted.
 */

const LIMIT = 3;
const TOO_MANY = 'ThrottlerException: Too Many Requests';

const search = (client: Client, query = 'q') => client.callTool({ name: 'search', arguments: { query } });
const refused = { code: -32603, message: TOO_MANY, data: { retryAfterSeconds: expect.any(Number) } };

/**
 * What the official client rejects a 2026-07-28 call with when the server answers HTTP 429: its HTTP error, carrying
 * the status and the JSON-RPC error body.
 */
async function expectRefusedOverHttp(call: Promise<unknown>): Promise<{ retryAfterSeconds: number }> {
  const error = (await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )) as { data?: { status?: number; text?: string } } | undefined;
  expect(error?.data?.status, String(error)).toBe(429);
  const body = JSON.parse(error!.data!.text!) as { error: { data: { retryAfterSeconds: number } } };
  expect(body.error).toMatchObject(refused);
  return body.error.data;
}

describe.each(ADAPTERS)('rate limits with @nestjs/throttler (%s)', (adapter) => {
  let running: RunningApp;
  const clients: Client[] = [];

  beforeEach(async () => {
    running = await startApp(adapter, { imports: [rateLimitedAppModule({ limit: LIMIT, ttl: 60_000 })] });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await running.close();
  });

  const connect = async (user: string) => {
    const client = await connectClient(running.mcpUrl, { fetch: fetchAs(user) });
    clients.push(client);
    return client;
  };

  it('2026-07-28: counts per caller and per tool; over the limit the call is refused with 429, Retry-After and -32603', async () => {
    const alice = await connect('alice');
    for (let call = 0; call < LIMIT; call++) expect((await search(alice)).isError).toBeFalsy();

    expect((await expectRefusedOverHttp(search(alice))).retryAfterSeconds).toBeGreaterThan(0);
    const raw = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'search', arguments: {} },
      headers: { 'x-user': 'alice' },
    });
    expect(raw.status).toBe(429);
    const body = raw.json as { error: { code: number; message: string; data: { retryAfterSeconds: number } } };
    expect(body.error).toMatchObject(refused);
    expect(body.error.data.retryAfterSeconds).toBeGreaterThan(0);
    expect(body.error.data.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(raw.headers.get('retry-after')).toBe(String(body.error.data.retryAfterSeconds));

    // Another caller, and another tool of the same caller, have their own counts.
    const bob = await connect('bob');
    expect((await search(bob, 'b')).structuredContent).toEqual({ hits: ['b-1', 'b-2'] });
    expect((await alice.callTool({ name: 'export_all', arguments: {} })).content).toEqual([
      { type: 'text', text: 'catalog.csv' },
    ]);
  });

  it('applies @Throttle on a method (its own limit) and @SkipThrottle (never counted)', async () => {
    const carol = await connect('carol');
    await carol.callTool({ name: 'export_all', arguments: {} });
    await expectRefusedOverHttp(carol.callTool({ name: 'export_all', arguments: {} }));
    for (let call = 0; call < LIMIT * 2; call++) {
      expect((await carol.callTool({ name: 'health', arguments: {} })).content).toEqual([
        { type: 'text', text: 'up (carol)' },
      ]);
    }
  });

  it('does not count lists, listen streams or other requests to the endpoint: only calls', async () => {
    const dave = await connect('dave');
    const stream = await openStream(running.mcpUrl, {
      method: 'subscriptions/listen',
      id: 'dave-listen',
      params: { notifications: { toolsListChanged: true } },
      headers: { 'x-user': 'dave' },
    });
    await stream.waitFor(
      (message) => message.method === 'notifications/subscriptions/acknowledged',
      'the acknowledgement',
    );
    for (let request = 0; request < LIMIT * 2; request++) await dave.listTools();
    for (let call = 0; call < LIMIT; call++) expect((await search(dave)).isError).toBeFalsy();
    await expectRefusedOverHttp(search(dave));
    stream.close();
    await stream.ended;
  });

  it('counts anonymous callers by their address', async () => {
    const anonymous = () =>
      mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'search', arguments: {} } });
    for (let call = 0; call < LIMIT; call++) expect((await anonymous()).status).toBe(200);
    const over = await anonymous();
    expect(over.status).toBe(429);
    expect((over.json as { error: unknown }).error).toMatchObject(refused);
    // A caller with a principal is counted apart from the address it comes from.
    expect(
      (
        await mcpPost(running.mcpUrl, {
          method: 'tools/call',
          params: { name: 'search', arguments: {} },
          headers: { 'x-user': 'erin' },
        })
      ).status,
    ).toBe(200);
  });

  it('2025-11-25: the same JSON-RPC error, with HTTP 200, in the session', async () => {
    const recorder = legacyRecordingFetch(fetchAs('frank'));
    const { client, sessionId } = await connectLegacyClient(running.mcpUrl, { recorder });
    clients.push(client);
    for (let call = 0; call < LIMIT - 1; call++) expect((await search(client)).isError).toBeFalsy();
    const last = await legacyPost(
      running.mcpUrl,
      { id: 'last', method: 'tools/call', params: { name: 'search', arguments: {} } },
      { sessionId, headers: { 'x-user': 'frank' } },
    );
    expect(last.status).toBe(200);
    expect(last.messages.at(-1)).toMatchObject({ id: 'last', result: { structuredContent: expect.anything() } });

    await expect(search(client)).rejects.toMatchObject(refused);
    const over = await legacyPost(
      running.mcpUrl,
      { id: 'over', method: 'tools/call', params: { name: 'search', arguments: {} } },
      { sessionId, headers: { 'x-user': 'frank' } },
    );
    expect(over.status).toBe(200);
    expect(over.messages.at(-1)).toMatchObject({ id: 'over', error: refused });
  });
});

describe('rate limits with @nestjs/throttler in the testing kit (in process)', () => {
  let moduleRef: TestingModule;
  afterEach(() => moduleRef.close());

  it('a guard on one provider with named throttlers: the burst limit refuses the third call, as HTTP would (429)', async () => {
    moduleRef = await Test.createTestingModule({ imports: [ReportsModule] }).compile();
    const client = await McpTestingClient.create(moduleRef);
    for (let call = 0; call < 2; call++) expect((await client.callTool('daily_report')).text()).toBe('report');
    const error = await client.callTool('daily_report').then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(McpTestingError);
    expect(error).toMatchObject({ code: -32603, httpStatus: 429, message: TOO_MANY, data: { retryAfterSeconds: 1 } });
  });

  it("a controller route called as a tool: the route's throttler guard refuses the second call per caller", async () => {
    moduleRef = await Test.createTestingModule({ imports: [ThrottledRouteModule] }).compile();
    const alice = await McpTestingClient.create(moduleRef, { principal: 'alice' });
    expect(JSON.parse((await alice.callTool('stock_level')).text())).toEqual({ items: 42 });
    await expect(alice.callTool('stock_level')).rejects.toMatchObject({
      code: -32603,
      httpStatus: 429,
      message: TOO_MANY,
    });
    const bob = await McpTestingClient.create(moduleRef, { principal: 'bob' });
    expect(JSON.parse((await bob.callTool('stock_level')).text())).toEqual({ items: 42 });
  });

  it('counts the call that creates a task, not its rounds', async () => {
    moduleRef = await Test.createTestingModule({ imports: [ThrottledTasksModule] }).compile();
    const client = await McpTestingClient.create(moduleRef, {
      headers: { 'x-user': 'grace' },
      capabilities: { elicitation: { form: {} } },
    });
    const task = await client.startTask('audit');
    const result = await task.result({ answers: [{ action: 'accept', content: { confirm: true } }] });
    expect(result.text()).toBe('audited');
    expect(moduleRef.get(ThrottledTaskTools).rounds).toBe(2); // two rounds under a limit of one call

    await expect(client.startTask('audit')).rejects.toMatchObject({ code: -32603, httpStatus: 429, message: TOO_MANY });
  });
});

describe('rate limits with @nestjs/throttler over stdio', () => {
  let stdio: InProcessStdio;
  afterEach(() => stdio.close());

  it('counts the one stdio client under `stdio` and refuses it with the same error, without crashing', async () => {
    stdio = await startInProcessStdio({ imports: [rateLimitedAppModule({ limit: LIMIT, ttl: 60_000 })] });
    const call = async (id: number) => {
      stdio.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'search', arguments: {}, _meta: modernMeta() },
      });
      return stdio.output.response(id);
    };
    for (let id = 1; id <= LIMIT; id++)
      expect(await call(id)).toMatchObject({ result: { structuredContent: { hits: ['-1', '-2'] } } });
    expect(await call(LIMIT + 1)).toMatchObject({ error: refused });
    // Still serving: a tool the limit skips answers.
    stdio.send({
      jsonrpc: '2.0',
      id: 99,
      method: 'tools/call',
      params: { name: 'health', arguments: {}, _meta: modernMeta() },
    });
    expect(await stdio.output.response(99)).toMatchObject({ result: { content: [{ text: 'up (anonymous)' }] } });
  });
});
