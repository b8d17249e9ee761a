import type { Client } from '@modelcontextprotocol/client';
import { Test } from '@nestjs/testing';
import { McpTestingClient } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncidentStore } from '../../docs/examples/tools/incidents.controller.js';
import { RouteToolsTestModule } from '../fixtures/route-tools.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient } from '../support/legacy-client.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';

/**
 * Controller routes as tools (issue #19, item 1), through plain HTTP and the official MCP client on both adapters: one
 * method serves both paths; its guard, pipes (parameter and global) and interceptor apply on both; the MCP context
 * reaches it only on the MCP path (progress through `getMcpInvocationContext`); its parameters give the tool's
 * `inputSchema`. The guide's `IncidentsController` is the main subject (docs/examples/tools/incidents.controller.ts).
 */

const ON_CALL = { 'x-on-call': 'yes' };

/** A fetch that adds `headers` to every request the MCP client sends. */
function withHeaders(headers: Record<string, string>): typeof fetch {
  return (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(input, { ...init, headers: merged });
  };
}

describe.each(ADAPTERS)('controller routes as tools (%s)', (adapter) => {
  let running: RunningApp;
  let store: IncidentStore;
  const clients: Client[] = [];

  async function mcp(headers: Record<string, string> = {}): Promise<Client> {
    const client = await connectClient(running.mcpUrl, { fetch: withHeaders(headers) });
    clients.push(client);
    return client;
  }

  async function http(
    method: 'GET' | 'POST',
    path: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ) {
    const response = await fetch(`${running.baseUrl}${path}`, {
      method,
      headers: { ...options.headers, ...(options.body !== undefined && { 'content-type': 'application/json' }) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      json: (await response.json()) as Record<string, unknown>,
    };
  }

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [RouteToolsTestModule] });
    store = running.app.get(IncidentStore);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await running?.close();
  });

  it('a route serves plain HTTP as before: JSON through its interceptor, and no MCP context', async () => {
    store.steps.length = 0;
    const answer = await http('POST', '/incidents/INC-7/reindex', { headers: ON_CALL, body: { steps: 2 } });
    expect(answer.status).toBe(201);
    expect(answer.type).toMatch(/^application\/json/);
    expect(answer.json).toEqual({ data: { id: 'INC-7', steps: 2, via: 'http' } });
    expect(store.steps).toEqual(['INC-7#1', 'INC-7#2']);
  });

  it('the same route is a tool: the interceptor shapes the result, and progress flows through the MCP context', async () => {
    store.steps.length = 0;
    const client = await mcp(ON_CALL);
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await client.callTool(
      { name: 'reindex_incident', arguments: { id: 'INC-7', steps: 3, reason: 'drift' } },
      { onprogress: (event) => progress.push(event) },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ data: { id: 'INC-7', steps: 3, via: 'mcp' } });
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1 of 3' },
      { progress: 2, total: 3, message: 'step 2 of 3' },
      { progress: 3, total: 3, message: 'step 3 of 3' },
    ]);
    expect(store.steps).toEqual(['INC-7#1', 'INC-7#2', 'INC-7#3']);
  });

  it("the route's guard refuses on both paths, and the method does not run", async () => {
    store.steps.length = 0;
    const answer = await http('POST', '/incidents/INC-7/reindex', { body: { steps: 1 } });
    expect(answer.status).toBe(403);
    const client = await mcp();
    const result = await client.callTool({ name: 'reindex_incident', arguments: { id: 'INC-7', steps: 1 } });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Forbidden resource' }] });
    expect(store.steps).toEqual([]);
  });

  it("the route's parameter pipe refuses on both paths with the same message", async () => {
    const answer = await http('POST', '/incidents/nope/reindex', { headers: ON_CALL, body: { steps: 1 } });
    expect(answer.status).toBe(400);
    expect(answer.json.message).toBe('"nope" is not an incident id (INC-123)');
    const client = await mcp(ON_CALL);
    const result = await client.callTool({ name: 'reindex_incident', arguments: { id: 'nope', steps: 1 } });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: '"nope" is not an incident id (INC-123)' }],
    });
  });

  it('ParseIntPipe converts and refuses on both paths; the global ValidationPipe hands both a DTO instance', async () => {
    const overHttp = await http('GET', '/probe/pages/3?size=5', { headers: { 'x-caller': 'ana' } });
    expect(overHttp.status).toBe(200);
    expect(overHttp.json).toEqual({
      n: 3,
      nType: 'number',
      size: 5,
      queryIsDto: true,
      caller: 'ana',
      name: 'ana',
      params: { n: '3' },
      body: null,
      mcp: false,
    });
    const client = await mcp({ 'x-caller': 'bo' });
    const overMcp = await client.callTool({ name: 'probe_page', arguments: { n: 3, size: 5 } });
    // Over MCP the headers are the MCP request's, the request's params/query/body the tool's arguments.
    expect(overMcp.structuredContent).toEqual({
      n: 3,
      nType: 'number',
      size: 5,
      queryIsDto: true,
      caller: 'bo',
      name: 'bo',
      params: { n: 3 },
      body: null,
      mcp: true,
    });

    const badHttp = await http('GET', '/probe/pages/2.5');
    expect(badHttp.status).toBe(400);
    const badMcp = await client.callTool({ name: 'probe_page', arguments: { n: 2.5 } });
    expect(badMcp).toMatchObject({ isError: true, content: [{ type: 'text', text: badHttp.json.message }] });
  });

  it('a DTO rule refuses on both paths (HTTP 400 from the ValidationPipe, MCP from the derived schema)', async () => {
    expect((await http('GET', '/incidents?status=bogus')).status).toBe(400);
    const client = await mcp();
    const result = await client.callTool({ name: 'list_incidents', arguments: { status: 'bogus' } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(
      /^Invalid arguments for tool "list_incidents": .*status/,
    );
    const open = await client.callTool({ name: 'list_incidents', arguments: { status: 'open' } });
    expect(open.structuredContent).toEqual({
      data: { incidents: [{ id: 'INC-1', title: 'Checkout latency', status: 'open' }] },
    });
    expect((await http('GET', '/incidents?status=open')).json).toEqual(open.structuredContent);
  });

  it("the tools' inputSchema comes from the route's parameters", async () => {
    const client = await mcp();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const reindex = byName.get('reindex_incident')!.inputSchema as Record<string, unknown>;
    // The @Body() DTO's properties, and the @Param('id') as a required string.
    expect(reindex.type).toBe('object');
    expect(reindex.properties).toEqual({
      steps: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 10 }),
      reason: expect.objectContaining({ type: 'string', maxLength: 200 }),
      id: { type: 'string' },
    });
    expect([...(reindex.required as string[])].sort()).toEqual(['id', 'steps']);
    const list = byName.get('list_incidents')!;
    expect((list.inputSchema.properties as Record<string, { enum?: unknown }>).status.enum).toEqual([
      'open',
      'resolved',
    ]);
    expect(list.inputSchema.required ?? []).toEqual([]);
    expect(list.annotations).toEqual({ readOnlyHint: true });
    const probe = byName.get('probe_page')!.inputSchema;
    expect(probe.properties).toEqual({ size: expect.objectContaining({ type: 'integer' }), n: { type: 'number' } });
    expect(probe.required).toEqual(['n']);
  });

  it('a request-scoped controller gets the synthetic request as REQUEST, and the accessor works from it', async () => {
    expect((await http('GET', '/scoped?tag=a')).json).toEqual({ tag: 'a', query: { tag: 'a' }, mcp: false });
    const client = await mcp();
    const result = await client.callTool({ name: 'scoped_probe', arguments: { tag: 'b' } });
    expect(result.structuredContent).toEqual({ tag: 'b', query: { tag: 'b' }, mcp: true });
  });

  it('a controller tool that is not a route runs its class-level guard too (guards named by class are found)', async () => {
    const refused = await (await mcp()).callTool({ name: 'on_call_only', arguments: {} });
    expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Forbidden resource' }] });
    const allowed = await (await mcp(ON_CALL)).callTool({ name: 'on_call_only', arguments: {} });
    expect(allowed.content).toEqual([{ type: 'text', text: 'on call' }]);
  });

  it('a route tool works on the 2025-11-25 wire too, with its guard', async () => {
    const { client } = await connectLegacyClient(running.mcpUrl);
    clients.push(client);
    const refused = await client.callTool({ name: 'reindex_incident', arguments: { id: 'INC-3', steps: 1 } });
    expect(refused).toMatchObject({ isError: true, content: [{ text: 'Forbidden resource' }] });
    const listed = await client.callTool({ name: 'list_incidents', arguments: {} });
    expect(listed.structuredContent).toEqual({ data: { incidents: store.list() } });
  });
});

describe('route tools in the testing kit, in process', () => {
  it("runs the route's guard and pipes against the request the test gives, with progress", async () => {
    const moduleRef = await Test.createTestingModule({ imports: [RouteToolsTestModule] }).compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
    try {
      const client = await McpTestingClient.create(moduleRef);
      expect((await client.callTool('reindex_incident', { id: 'INC-9', steps: 1 })).isError).toBe(true);
      const result = await client.callTool('reindex_incident', { id: 'INC-9', steps: 2 }, { headers: ON_CALL });
      expect(result.structuredContent).toEqual({ data: { id: 'INC-9', steps: 2, via: 'mcp' } });
      expect(result.progress.map((event) => event.message)).toEqual(['step 1 of 2', 'step 2 of 2']);
    } finally {
      await moduleRef.close();
    }
  });
});
