import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedHeadersModule, SecurityHeadersModule } from '../fixtures/security-headers.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { expectError, expectResult, jsonOf, rawHttp, rawPost, textOf } from '../support/wire-response.util.js';

/**
 * Issue #13, item 10d: the MCP endpoint's responses do not say which framework serves them (Express sends
 * `X-Powered-By: Express` by default). Only the endpoint changes: the application's other routes keep the app's own
 * setting.
 */

describe.each(ADAPTERS)('no X-Powered-By on the MCP endpoint (%s)', (adapter) => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [SecurityHeadersModule] });
  });
  afterAll(async () => {
    await running?.close();
  });

  const expectNoPoweredBy = (response: RawResponse | Response) =>
    expect(response.headers.get('x-powered-by')).toBeNull();

  /** The endpoint still answers an ordinary request afterwards. */
  async function stillServes(): Promise<void> {
    const response = await mcpPost(running.mcpUrl, { method: 'tools/list' });
    expect(expectResult<{ tools: unknown[] }>(response, 'tools/list').tools).toHaveLength(1);
    expectNoPoweredBy(response);
  }

  it('200 application/json (tools/list)', async () => {
    const response = await mcpPost(running.mcpUrl, { method: 'tools/list' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expectNoPoweredBy(response);
  });

  it('200 text/event-stream (a call with progress)', async () => {
    const response = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'twoSteps', arguments: {} },
      meta: requestMeta({ progressToken: 'p' }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(textOf(expectResult(response, 'tools/call'))).toBe('done');
    expectNoPoweredBy(response);
    await stillServes();
  });

  it('202 for a notification', async () => {
    const response = await mcpPost(running.mcpUrl, { method: 'notifications/initialized', id: null });
    expect(response.status).toBe(202);
    expectNoPoweredBy(response);
    await stillServes();
  });

  it.each<[string, Parameters<typeof mcpPost>[1], number, number]>([
    ['400 -32700 (not JSON)', { method: 'tools/list', rawBody: '{"jsonrpc":' }, 400, -32700],
    ['415 -32600 (Content-Type)', { method: 'tools/list', headers: { 'content-type': 'text/plain' } }, 415, -32600],
    ['406 -32600 (Accept)', { method: 'tools/list', headers: { accept: 'image/png' } }, 406, -32600],
    ['404 -32601 (unknown method)', { method: 'no/such/method' }, 404, -32601],
    ['400 -32020 (header mismatch)', { method: 'tools/list', headers: { 'mcp-method': 'prompts/list' } }, 400, -32020],
  ])('%s', async (_label, call, status, code) => {
    const response = await mcpPost(running.mcpUrl, call);
    expectError(response, status, code, 'either');
    expectNoPoweredBy(response);
    await stillServes();
  });

  it('405 for GET and DELETE without a session', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(running.mcpUrl, {
        method,
        headers: { accept: 'application/json, text/event-stream' },
      });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expectNoPoweredBy(response);
    }
    await stillServes();
  });

  it('413 for a body declared larger than maxBodyBytes (refused before it is read)', async () => {
    const answer = await rawHttp(
      running.mcpUrl,
      rawPost(
        running.mcpUrl,
        ['Content-Type: application/json', 'Accept: application/json, text/event-stream'],
        'x'.repeat(70 * 1024),
      ),
    );
    expect(answer.status).toBe(413);
    expect(jsonOf(answer)?.error?.code).toBe(-32600);
    expect(answer.headers['x-powered-by']).toBeUndefined();
    await stillServes();
  });

  it('2025-11-25 initialize (200, session header)', async () => {
    const response = await fetch(running.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'headers-e2e', version: '1.0.0' },
        },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeTypeOf('string');
    expectNoPoweredBy(response);
    await stillServes();
  });

  it('the application keeps its own setting on its other routes', async () => {
    const response = await fetch(`${running.baseUrl}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-powered-by')).toBe(adapter === 'express' ? 'Express' : null);
  });
});

describe.each(ADAPTERS)('no X-Powered-By when a guard refuses a GET or DELETE of the endpoint (%s)', (adapter) => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [GuardedHeadersModule] });
  });
  afterAll(async () => {
    await running?.close();
  });

  it('403 from the guard carries no X-Powered-By, and the endpoint still serves POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(running.mcpUrl, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'x' },
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('x-powered-by')).toBeNull();
    }
    const list = await mcpPost(running.mcpUrl, { method: 'tools/list' });
    expect(expectResult<{ tools: unknown[] }>(list, 'tools/list').tools).toHaveLength(1);
    expect(list.headers.get('x-powered-by')).toBeNull();
  });
});
