import type { Client } from '@modelcontextprotocol/client';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TelemetryProbe, telemetryApp } from '../fixtures/telemetry.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient } from '../support/legacy-client.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { OtelHarness } from '../support/otel.harness.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { modernMeta, startInProcessStdio, type InProcessStdio } from '../support/stdio.harness.js';

/**
 * Traces over Streamable HTTP (issue #27), on both adapters, read from a real OpenTelemetry SDK's in-memory exporter:
 * one SERVER span per request named and attributed as the MCP semantic conventions say, its parent the trace context
 * the client put in `_meta` (the ambient HTTP span a link), the handler inside it, errors recorded by who caused them,
 * and cardinality guards on names a caller chooses.
 */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

describe.each(ADAPTERS)('telemetry: spans over HTTP (%s)', (adapter) => {
  let otel: OtelHarness;
  let running: RunningApp;
  const clients: Client[] = [];

  beforeEach(async () => {
    otel = OtelHarness.install();
    running = await startApp(adapter, { imports: [telemetryApp()] });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await running.close();
    await otel.uninstall();
  });

  async function client(): Promise<Client> {
    const connected = await connectClient(running.mcpUrl);
    clients.push(connected);
    return connected;
  }

  it('a tools/call from the official client: one SERVER span with the conventions’ name and attributes', async () => {
    const mcp = await client();
    await mcp.callTool({ name: 'echo', arguments: { text: 'hi' }, _meta: { traceparent: TRACEPARENT } });
    const span = otel.span('tools/call echo');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.parentSpanContext?.isRemote).toBe(true);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': expect.any(String),
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
      'client.address': '127.0.0.1',
      'client.port': expect.any(Number),
      'nest_mcp.outcome': 'success',
      'nest_mcp.wire': '2026-07-28',
      'nest_mcp.sse': false,
    });
    // Never on a 2026-07-28 span; never recorded without the opt-in.
    for (const absent of [
      'mcp.session.id',
      'server.address',
      'error.type',
      'rpc.response.status_code',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
    ]) {
      expect(span.attributes).not.toHaveProperty(absent);
    }
    expect(JSON.stringify(span.attributes)).not.toContain('"hi"');
  });

  it('a 2025-11-25 session: mcp.session.id and the negotiated version on the span, _meta still the parent', async () => {
    const { client: legacy, sessionId } = await connectLegacyClient(running.mcpUrl);
    clients.push(legacy);
    await legacy.callTool({ name: 'echo', arguments: { text: 'old' }, _meta: { traceparent: TRACEPARENT } });
    const span = otel.span('tools/call echo');
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.attributes).toMatchObject({
      'mcp.session.id': sessionId,
      'mcp.protocol.version': '2025-11-25',
      'nest_mcp.wire': '2025-11-25',
      'network.transport': 'tcp',
    });
  });

  it('jsonrpc.request.id is the id as a string; other methods are named by the method alone', async () => {
    const response = await mcpPost(running.mcpUrl, { id: 7, method: 'tools/list', params: {} });
    expect(response.status).toBe(200);
    const span = otel.span('tools/list');
    expect(span.attributes['jsonrpc.request.id']).toBe('7');
    expect(span.attributes).not.toHaveProperty('gen_ai.tool.name');
    expect(span.attributes).not.toHaveProperty('gen_ai.operation.name');
    await mcpPost(running.mcpUrl, {
      id: 'abc',
      method: 'prompts/get',
      params: { name: 'greet', arguments: { who: 'Ada' } },
    });
    expect(otel.span('prompts/get greet').attributes).toMatchObject({
      'gen_ai.prompt.name': 'greet',
      'jsonrpc.request.id': 'abc',
    });
    expect(JSON.stringify(otel.span('prompts/get greet').attributes)).not.toContain('Ada');
  });

  it('the handler runs inside the span: its own spans nest under it and the baggage of _meta reaches it', async () => {
    const response = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'nested' },
      meta: requestMeta({ traceparent: TRACEPARENT, baggage: 'userId=alice' }),
    });
    expect(response.status).toBe(200);
    const server = otel.span('tools/call nested');
    const child = otel.span('db.query');
    expect(child.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(child.spanContext().traceId).toBe(TRACE_ID);
    expect(running.app.get(TelemetryProbe).seen.at(-1)).toEqual({
      tool: 'nested',
      traceId: TRACE_ID,
      spanId: server.spanContext().spanId,
      baggage: 'alice',
    });
    // Baggage is the caller's data: never copied into attributes.
    expect(JSON.stringify(server.attributes)).not.toContain('alice');
  });

  it('without a traceparent the span starts a trace of its own; a malformed one is ignored', async () => {
    await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } });
    const fresh = otel.span('tools/call echo');
    expect(fresh.parentSpanContext).toBeUndefined();
    otel.exporter.reset();
    for (const traceparent of [
      `ff-${TRACE_ID}-${PARENT_ID}-01`,
      `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${PARENT_ID}`,
      42,
    ]) {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'a' } },
        meta: requestMeta({ traceparent }),
      });
      expect(response.status).toBe(200);
    }
    const spans = otel.spans('tools/call echo');
    expect(spans).toHaveLength(4);
    for (const span of spans) {
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe(TRACE_ID);
    }
  });

  it('an ambient span (the HTTP server span of instrumentation-http) becomes a link when _meta names the parent', async () => {
    // The request handler runs inside an active span, as under @opentelemetry/instrumentation-http.
    const server = running.app.getHttpServer() as import('node:http').Server;
    const tracer = trace.getTracer('http-instrumentation');
    const listeners = server.listeners('request') as Array<(...args: unknown[]) => void>;
    server.removeAllListeners('request');
    let ambient: string | undefined;
    server.on('request', (req, res) => {
      const span = tracer.startSpan('POST', { kind: SpanKind.SERVER });
      ambient = span.spanContext().spanId;
      res.on('finish', () => span.end());
      const active = trace.setSpan(context.active(), span);
      // As instrumentation-http does: the request's and response's listeners run in the HTTP span's context.
      context.bind(active, req);
      context.bind(active, res);
      context.with(active, () => listeners.forEach((listener) => listener(req, res)));
    });
    await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'a' } },
      meta: requestMeta({ traceparent: TRACEPARENT }),
    });
    const linked = otel.span('tools/call echo');
    expect(linked.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(linked.links.map((link) => link.context.spanId)).toEqual([ambient]);
    otel.exporter.reset();
    await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } });
    const child = otel.span('tools/call echo');
    expect(child.parentSpanContext?.spanId).toBe(ambient);
    expect(child.links).toEqual([]);
  });

  it('errors: the caller’s mistakes keep the span UNSET, server failures and tool errors mark it ERROR', async () => {
    await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'no-such-tool', arguments: {} } });
    const unknown = otel.span('tools/call');
    expect(unknown.attributes).toMatchObject({
      'rpc.response.status_code': '-32602',
      'nest_mcp.outcome': 'request_error',
    });
    expect(unknown.attributes).not.toHaveProperty('error.type');
    expect(unknown.attributes).not.toHaveProperty('gen_ai.tool.name');
    expect(unknown.status.code).toBe(SpanStatusCode.UNSET);

    await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'refuse' } });
    const refused = otel.span('tools/call refuse');
    expect(refused.attributes).toMatchObject({ 'error.type': 'tool_error', 'nest_mcp.outcome': 'tool_error' });
    expect(refused.status.code).toBe(SpanStatusCode.ERROR);

    await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'explode' } });
    const exploded = otel.span('tools/call explode');
    expect(exploded.attributes).toMatchObject({
      'error.type': '-32603',
      'rpc.response.status_code': '-32603',
      'nest_mcp.outcome': 'server_error',
    });
    expect(exploded.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the backend is down' });
  });

  it('MRTR: nest_mcp.mrtr.round is 1 on the first call and n on the n-th round carrying requestState', async () => {
    const accept = { action: 'accept', content: { yes: true } };
    const meta = requestMeta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } });
    const first = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      meta,
      params: { name: 'twice', arguments: {} },
    });
    const asked = (first.json as { result: { resultType: string; requestState: string } }).result;
    expect(asked, first.text).toBeDefined();
    expect(asked.resultType).toBe('input_required');
    const second = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      meta,
      params: { name: 'twice', arguments: {}, inputResponses: { first: accept }, requestState: asked.requestState },
    });
    const askedAgain = (second.json as { result: { resultType: string; requestState: string } }).result;
    expect(askedAgain.resultType).toBe('input_required');
    const third = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      meta,
      params: {
        name: 'twice',
        arguments: {},
        inputResponses: { second: accept },
        requestState: askedAgain.requestState,
      },
    });
    expect((third.json as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe(
      'accept accept',
    );
    const rounds = otel.spans('tools/call twice').map((span) => span.attributes['nest_mcp.mrtr.round']);
    expect(rounds).toEqual([1, 2, 3]);
    expect(otel.spans('tools/call twice').map((span) => span.attributes['nest_mcp.outcome'])).toEqual([
      'input_required',
      'input_required',
      'success',
    ]);
  });

  it('progress and log notifications: counted on the span, the SSE upgrade recorded, log lines carry the span', async () => {
    const response = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'chatty' },
      meta: requestMeta({ progressToken: 'p1', 'io.modelcontextprotocol/logLevel': 'info' }),
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(response.status).toBe(200);
    const [span] = await otel.waitForSpans('tools/call chatty', 1);
    expect(span.attributes).toMatchObject({
      'nest_mcp.progress.count': 2,
      'nest_mcp.notifications.sent': 3,
      'nest_mcp.sse': true,
    });
    const { traceId, spanId } = span.spanContext();
    const log = response.text.split('\n').find((line) => line.includes('notifications/message'));
    expect(log).toBeDefined();
    expect(JSON.parse(log!.replace(/^data: /, '')).params._meta.traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });
});

describe('telemetry: opt-ins and the off switch', () => {
  let otel: OtelHarness;
  let running: RunningApp | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
    await otel.uninstall();
  });

  it('recordToolArguments / recordToolResults / recordPromptVariables put the sensitive values on the span', async () => {
    otel = OtelHarness.install();
    running = await startApp('express', {
      imports: [
        telemetryApp({
          telemetry: { recordToolArguments: true, recordToolResults: true, recordPromptVariables: true },
        }),
      ],
    });
    await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'secret-ish' } },
    });
    const span = otel.span('tools/call echo');
    expect(JSON.parse(span.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ text: 'secret-ish' });
    expect(span.attributes['gen_ai.tool.call.result']).toContain('secret-ish');
    await mcpPost(running.mcpUrl, { method: 'prompts/get', params: { name: 'greet', arguments: { who: 'Ada' } } });
    expect(otel.span('prompts/get greet').attributes['gen_ai.prompt.variable.who']).toBe('Ada');
  });

  it('telemetry: false records nothing, even with an SDK registered', async () => {
    otel = OtelHarness.install();
    running = await startApp('fastify', { imports: [telemetryApp({ telemetry: false })] });
    await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } });
    expect(otel.spans()).toEqual([]);
    expect(await otel.points('mcp.server.operation.duration')).toEqual([]);
  });

  it('injected providers are used instead of the globals', async () => {
    otel = OtelHarness.install({ globalProviders: false });
    running = await startApp('express', {
      imports: [
        telemetryApp({ telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider } }),
      ],
    });
    await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'a' } },
      meta: requestMeta({ traceparent: TRACEPARENT }),
    });
    const span: ReadableSpan = otel.span('tools/call echo');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
  });
});

describe('telemetry: spans over stdio', () => {
  let otel: OtelHarness;
  let stdio: InProcessStdio;
  beforeEach(async () => {
    otel = OtelHarness.install();
    stdio = await startInProcessStdio({ imports: [telemetryApp()] });
  });
  afterEach(async () => {
    await stdio.close();
    await otel.uninstall();
  });

  it('network.transport is pipe, no HTTP or client attributes; _meta still names the parent', async () => {
    stdio.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'a' }, _meta: modernMeta({ traceparent: TRACEPARENT }) },
    });
    expect(await stdio.output.response(7)).toMatchObject({ result: { content: [{ text: 'a' }] } });
    const span = otel.span('tools/call echo');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.attributes).toMatchObject({
      'network.transport': 'pipe',
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': '2026-07-28',
    });
    for (const absent of [
      'network.protocol.name',
      'network.protocol.version',
      'client.address',
      'client.port',
      'nest_mcp.sse',
      'mcp.session.id',
    ]) {
      expect(span.attributes).not.toHaveProperty(absent);
    }
  });

  it('an unknown method is recorded as _OTHER, whatever name the caller chose', async () => {
    stdio.send({ jsonrpc: '2.0', id: 8, method: 'made/up', params: { _meta: modernMeta() } });
    expect(await stdio.output.response(8)).toMatchObject({ error: { code: -32601 } });
    const span = otel.span('_OTHER');
    expect(span.attributes).toMatchObject({
      'mcp.method.name': '_OTHER',
      'rpc.response.status_code': '-32601',
      'nest_mcp.outcome': 'request_error',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(JSON.stringify(span.attributes)).not.toContain('made/up');
  });
});
