import { McpEvents } from 'nest-mcp';
import { McpWebhookReceiver } from 'nest-mcp/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventsFixtureModule } from '../fixtures/events.fixture.js';
import { eventsPost, resultOf } from '../support/events.util.js';
import { telemetryApp } from '../fixtures/telemetry.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient } from '../support/legacy-client.factory.js';
import { OtelHarness } from '../support/otel.harness.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';

/**
 * Metrics (issue #27, item 2), read from a real OpenTelemetry SDK's MeterProvider: `mcp.server.operation.duration`
 * with the advised buckets and only bounded attributes, `mcp.server.session.duration` for 2025-11-25 sessions only,
 * and nest-mcp's own operational metrics under `nest_mcp.`.
 */

const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

interface HistogramPoint {
  attributes: Record<string, unknown>;
  value: { count: number; buckets: { boundaries: number[] } };
}

describe.each(ADAPTERS)('telemetry: metrics over HTTP (%s)', (adapter) => {
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

  it('mcp.server.operation.duration: one data point per tool, in seconds, the advised buckets, no ids', async () => {
    for (let index = 0; index < 3; index++) {
      await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: `${index}` } },
        meta: requestMeta({ traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` }),
      });
    }
    await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'explode' } });
    const collected = await otel.collect();
    const metric = collected.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((entry) => entry.descriptor.name === 'mcp.server.operation.duration')!;
    expect(metric.descriptor.unit).toBe('s');
    const points = metric.dataPoints as unknown as HistogramPoint[];
    const echo = points.find((point) => point.attributes['gen_ai.tool.name'] === 'echo')!;
    expect(echo.value.count).toBe(3);
    expect(echo.value.buckets.boundaries).toEqual(BUCKETS);
    expect(echo.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
    });
    const exploded = points.find((point) => point.attributes['gen_ai.tool.name'] === 'explode')!;
    expect(exploded.attributes).toMatchObject({ 'error.type': '-32603', 'rpc.response.status_code': '-32603' });
    for (const point of points) {
      for (const key of Object.keys(point.attributes))
        expect(key).not.toMatch(/request\.id|session\.id|client\.|arguments|result/);
    }
  });

  it('calls in flight go up and back down; an SSE upgrade is counted', async () => {
    await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'chatty' },
      meta: requestMeta({ progressToken: 'p' }),
      headers: { accept: 'application/json, text/event-stream' },
    });
    await otel.waitForSpans('tools/call chatty', 1);
    const inFlight = await otel.points('nest_mcp.calls.in_flight');
    expect(inFlight.find((point) => point.attributes['mcp.method.name'] === 'tools/call')?.value).toBe(0);
    const upgrades = await otel.points('nest_mcp.sse.upgrades');
    expect(upgrades.find((point) => point.attributes['mcp.method.name'] === 'tools/call')?.value).toBe(1);
  });

  it('mcp.server.session.duration: recorded when a 2025-11-25 session ends, never for 2026-07-28 calls', async () => {
    await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } });
    expect(await otel.points('mcp.server.session.duration')).toEqual([]);
    const { client, transport } = await connectLegacyClient(running.mcpUrl);
    await client.callTool({ name: 'echo', arguments: { text: 'old' } });
    await transport.terminateSession();
    await client.close();
    const [point] = (await otel.points('mcp.server.session.duration')) as unknown as HistogramPoint[];
    expect(point.value.count).toBe(1);
    expect(point.value.buckets.boundaries).toEqual(BUCKETS);
    expect(point.attributes).toEqual({
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
  });
});

describe('telemetry: admission refusals', () => {
  let otel: OtelHarness;
  let running: RunningApp;
  afterEach(async () => {
    await running.close();
    await otel.uninstall();
  });

  it('a call refused by the calls-in-flight caps is a span and a count, by reason', async () => {
    otel = OtelHarness.install();
    running = await startApp('express', { imports: [telemetryApp({ maxCallsInFlight: 1 })] });
    const slow = mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'slow', arguments: { ms: 400 } } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
    });
    expect(refused.status).toBe(503);
    await slow;
    const span = otel.span('tools/call echo');
    expect(span.attributes).toMatchObject({
      'rpc.response.status_code': '-32603',
      'error.type': '-32603',
      'nest_mcp.outcome': 'server_error',
    });
    const refusals = await otel.points('nest_mcp.admission.refusals');
    expect(refusals).toEqual([expect.objectContaining({ attributes: { 'nest_mcp.reason': 'server' }, value: 1 })]);
  });
});

describe('telemetry: event webhook deliveries', () => {
  let otel: OtelHarness;
  let running: RunningApp;
  let target: McpWebhookReceiver;
  afterEach(async () => {
    await target.close();
    await running.close();
    await otel.uninstall();
  });

  it('a delivery acknowledged after three 500s: three retries by reason, one delivery delivered', async () => {
    otel = OtelHarness.install();
    running = await startApp('express', {
      imports: [
        EventsFixtureModule.forRoot({
          events: { webhooks: { allowInsecureLoopback: true, retryBaseMs: 40, maxAttempts: 5, timeoutMs: 2_000 } },
        }),
      ],
    });
    target = await McpWebhookReceiver.start();
    resultOf(
      await eventsPost(
        running.mcpUrl,
        'events/subscribe',
        {
          name: 'incident.opened',
          arguments: { service: 'otel' },
          delivery: { mode: 'webhook', url: target.url, secret: target.secret },
        },
        'alice',
      ),
    );
    target.respondWith(500, 500, 500);
    await running.app
      .get(McpEvents)
      .emit(
        'incident.opened',
        { id: 'W-9', severity: 'P1', service: 'otel', title: 'DB down' },
        { eventId: 'evt_otel' },
      );
    await target.nextEvent(10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await otel.points('nest_mcp.event.delivery.retries')).toEqual([
      expect.objectContaining({ attributes: { 'nest_mcp.reason': 'http_5xx' }, value: 3 }),
    ]);
    expect(await otel.points('nest_mcp.event.deliveries')).toEqual([
      expect.objectContaining({ attributes: { 'nest_mcp.outcome': 'delivered' }, value: 1 }),
    ]);
    // The webhook's secret and URL never reach a metric.
    expect(JSON.stringify(await otel.collect())).not.toContain(target.secret);
  });
});
