import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { telemetryApp } from '../fixtures/telemetry.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { type AuthApp, bearer, callTool, startAuthApp } from '../support/auth-app.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { OtelHarness } from '../support/otel.harness.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';

/**
 * Requests refused at the HTTP edge, before the call runner (issue #27): the bearer check, the body limit, the
 * JSON-RPC envelope and the header checks each answer with one SERVER span and one point of
 * `mcp.server.operation.duration`, named `_OTHER` until the body was read as a JSON-RPC request and by its method
 * after. Classified like every answer: a refusal the caller caused (401, 413, 400) carries `rpc.response.status_code`
 * and `http.response.status_code` but no `error.type` and leaves the span UNSET (genai PR #404: a server span does
 * not mark the caller's mistakes as errors); one the server caused (a broken `auth.principal`, 500) is an error.
 * Both adapters, a real SDK, a real authorization server; the server serves the next request.
 */

const STEADY = { 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': '1.1' };

/** The histogram points of `mcp.server.operation.duration`, by their attributes. */
async function durationPoints(
  otel: OtelHarness,
): Promise<Array<{ attributes: Record<string, unknown>; count: number }>> {
  const points = await otel.points('mcp.server.operation.duration');
  return points.map((point) => ({ attributes: point.attributes, count: (point.value as { count: number }).count }));
}

/** A refusal's span: SERVER, its outcome `refused`, UNSET unless the server caused it. */
function expectRefusedSpan(span: ReadableSpan, attributes: Record<string, unknown>, failed?: string): void {
  expect(span.kind).toBe(1); // SpanKind.SERVER
  expect(span.attributes).toMatchObject({ ...STEADY, ...attributes, 'nest_mcp.outcome': 'refused' });
  expect(span.attributes['client.address']).toBe('127.0.0.1');
  expect(span.attributes['client.port']).toBeTypeOf('number');
  if (failed === undefined) {
    expect(span.attributes).not.toHaveProperty('error.type');
    expect(span.status.code).toBe(0); // UNSET
  } else {
    expect(span.attributes['error.type']).toBe(failed);
    expect(span.status).toEqual({ code: 2, message: expect.any(String) }); // ERROR
  }
  // From receipt to the answer: a start before the end, never a zero-length placeholder made afterwards.
  expect(span.duration[0] * 1e9 + span.duration[1]).toBeGreaterThan(0);
}

describe.each(ADAPTERS)('telemetry: requests refused at the HTTP edge (%s)', (adapter) => {
  let otel: OtelHarness;
  let running: RunningApp;
  beforeEach(async () => {
    otel = OtelHarness.install();
    running = await startApp(adapter, { imports: [telemetryApp({ maxBodyBytes: 2048 })] });
  });
  afterEach(async () => {
    await running.close();
    await otel.uninstall();
  });

  it('413: a body over maxBodyBytes, refused before it is read: `_OTHER`, no id, not an error', async () => {
    const refused = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(4096) } },
    });
    expect(refused.status).toBe(413);
    expectRefusedSpan(otel.span('_OTHER'), {
      'mcp.method.name': '_OTHER',
      'rpc.response.status_code': '-32600',
      'http.response.status_code': 413,
    });
    expect(otel.span('_OTHER').attributes).not.toHaveProperty('jsonrpc.request.id');
    expect(await durationPoints(otel)).toEqual([
      {
        attributes: {
          ...STEADY,
          'mcp.method.name': '_OTHER',
          'rpc.response.status_code': '-32600',
          'http.response.status_code': 413,
        },
        count: 1,
      },
    ]);
  });

  it('400: headers that disagree with the body: named by its method, parented by its `_meta` traceparent', async () => {
    const traceId = 'c'.repeat(32);
    const refused = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      id: 41,
      params: { name: 'echo', arguments: { text: 'a' } },
      meta: requestMeta({ traceparent: `00-${traceId}-${'d'.repeat(16)}-01` }),
      headers: { 'mcp-name': 'not-echo' },
    });
    expect(refused.status).toBe(400);
    expect((refused.json as { error: { code: number } }).error.code).toBe(-32020);
    const span = otel.span('tools/call');
    expectRefusedSpan(span, {
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '41',
      'rpc.response.status_code': '-32020',
      'http.response.status_code': 400,
    });
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe('d'.repeat(16));
  });

  it('404 -32601: a method the server does not implement is `_OTHER`, with its id, never its name', async () => {
    const refused = await mcpPost(running.mcpUrl, { method: 'made/up', id: 'u-1', params: {} });
    expect(refused.status).toBe(404);
    const span = otel.span('_OTHER');
    expectRefusedSpan(span, {
      'mcp.method.name': '_OTHER',
      'jsonrpc.request.id': 'u-1',
      'rpc.response.status_code': '-32601',
      'http.response.status_code': 404,
    });
    expect(JSON.stringify(span.attributes)).not.toContain('made/up');
  });

  it('400 -32700: a body that is not JSON: `_OTHER`; then the next request is served and spanned as usual', async () => {
    const refused = await mcpPost(running.mcpUrl, { method: 'tools/call', rawBody: '{"jsonrpc": "2.0", "id": 1,' });
    expect(refused.status).toBe(400);
    expectRefusedSpan(otel.span('_OTHER'), {
      'mcp.method.name': '_OTHER',
      'rpc.response.status_code': '-32700',
      'http.response.status_code': 400,
    });

    const served = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'b' } },
    });
    expect(served.status).toBe(200);
    expect(otel.span('tools/call echo').attributes['nest_mcp.outcome']).toBe('success');
    const points = (await durationPoints(otel)).map((point) => [
      point.attributes['mcp.method.name'],
      point.attributes['http.response.status_code'],
    ]);
    expect(points.sort()).toEqual([
      ['_OTHER', 400],
      ['tools/call', undefined],
    ]);
  });
});

describe.each(ADAPTERS)('telemetry: 2025-11-25 requests refused before the runner (%s)', (adapter) => {
  let otel: OtelHarness;
  let running: RunningApp;
  beforeEach(async () => {
    otel = OtelHarness.install();
    running = await startApp(adapter, { imports: [telemetryApp()] });
  });
  afterEach(async () => {
    await running.close();
    await otel.uninstall();
  });

  it('404: a call naming a session the server does not know: named by its method, no session id, not an error', async () => {
    const refused = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      id: 'legacy-1',
      params: { name: 'echo', arguments: { text: 'a' } },
      meta: false,
      headers: {
        'mcp-protocol-version': '2025-11-25',
        'mcp-session-id': 'no-such-session',
        'mcp-method': undefined,
        'mcp-name': undefined,
      },
    });
    expect(refused.status).toBe(404);
    const span = otel.span('tools/call');
    expectRefusedSpan(span, {
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': 'legacy-1',
      'rpc.response.status_code': '-32600',
      'http.response.status_code': 404,
    });
    expect(span.attributes).not.toHaveProperty('mcp.session.id');
    expect((await durationPoints(otel)).map((point) => point.attributes['http.response.status_code'])).toEqual([404]);
  });
});

describe('telemetry: refusals with telemetry off', () => {
  let otel: OtelHarness;
  let running: RunningApp;
  afterEach(async () => {
    await running.close();
    await otel.uninstall();
  });

  it('`telemetry: false`: a refusal records nothing even with an SDK registered', async () => {
    otel = OtelHarness.install();
    running = await startApp('express', { imports: [telemetryApp({ maxBodyBytes: 2048, telemetry: false })] });
    const refused = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(4096) } },
    });
    expect(refused.status).toBe(413);
    expect(otel.spans()).toEqual([]);
    expect(await otel.points('mcp.server.operation.duration')).toEqual([]);
  });
});

describe.each(ADAPTERS)('telemetry: bearer refusals (%s)', (adapter) => {
  const ALPHA = { clientId: 'svc-alpha', clientSecret: 'alpha-secret-0123456789' };
  /** A client whose tokens the application's `auth.principal` cannot map: a server-side failure (500). */
  const BROKEN = { clientId: 'svc-broken', clientSecret: 'broken-secret-0123456789' };
  let as: TestAuthorizationServer;
  let app: AuthApp;
  let otel: OtelHarness;

  beforeAll(async () => {
    as = await startAuthorizationServer({ confidentialClients: [ALPHA, BROKEN] });
  });
  afterAll(async () => {
    await as?.close();
  });
  beforeEach(async () => {
    otel = OtelHarness.install();
    app = await startAuthApp(adapter, (resource) => ({
      resource,
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp:read'],
      principal: (token) => {
        if (token.clientId === BROKEN.clientId) throw new Error('the directory is down');
        return undefined;
      },
    }));
  });
  afterEach(async () => {
    await app?.close();
    await otel.uninstall();
  });

  const tokenOf = async (client: typeof ALPHA) =>
    (
      await as.clientCredentialsToken({
        resource: app.resource,
        scope: 'mcp:read',
        clientId: client.clientId,
        clientSecret: client.clientSecret,
      })
    ).access_token;

  it('401 without a token and 500 from a broken `auth.principal`: spans and points; only the 500 is an error', async () => {
    const unauthorized = await callTool(app, 'whoami', {});
    expect(unauthorized.status).toBe(401);
    expectRefusedSpan(otel.span('_OTHER'), {
      'mcp.method.name': '_OTHER',
      'rpc.response.status_code': '-32600',
      'http.response.status_code': 401,
    });

    otel.exporter.reset();
    const broken = await callTool(app, 'whoami', bearer(await tokenOf(BROKEN)));
    expect(broken.status).toBe(500);
    expectRefusedSpan(
      otel.span('_OTHER'),
      { 'mcp.method.name': '_OTHER', 'rpc.response.status_code': '-32603', 'http.response.status_code': 500 },
      '-32603',
    );

    // The next request, with a good token, is served: a span of the runner's own.
    const served = await callTool(app, 'whoami', bearer(await tokenOf(ALPHA)));
    expect(served.status).toBe(200);
    expect(otel.span('tools/call whoami').attributes['nest_mcp.outcome']).toBe('success');

    // Insufficient scope (403) is decided once the call runs: the runner's span, not a second one from the edge.
    const forbidden = await callTool(app, 'stepUp', bearer(await tokenOf(ALPHA)));
    expect(forbidden.status).toBe(403);
    const stepUp = otel.span('tools/call stepUp');
    expect(stepUp.attributes).toMatchObject({
      'nest_mcp.outcome': 'request_error',
      'rpc.response.status_code': '-32600',
    });
    expect(stepUp.attributes).not.toHaveProperty('http.response.status_code');
    expect(otel.spans().filter((span) => span.name === '_OTHER')).toHaveLength(1);

    const points = await durationPoints(otel);
    const byStatus = (status: number) =>
      points.find((point) => point.attributes['http.response.status_code'] === status);
    expect(byStatus(401)).toEqual({
      attributes: {
        ...STEADY,
        'mcp.method.name': '_OTHER',
        'rpc.response.status_code': '-32600',
        'http.response.status_code': 401,
      },
      count: 1,
    });
    expect(byStatus(500)?.attributes).toMatchObject({ 'error.type': '-32603', 'rpc.response.status_code': '-32603' });
    expect(points.find((point) => point.attributes['gen_ai.tool.name'] === 'whoami')?.count).toBe(1);
    // No token reaches a span or a metric.
    const exported = JSON.stringify([otel.spans().map((span) => span.attributes), points]);
    expect(exported).not.toMatch(/Bearer|eyJ/);
  });
});
