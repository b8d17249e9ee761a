import type { Client } from '@modelcontextprotocol/client';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { McpEvents } from 'nest-mcp';
import { McpTestingClient, McpWebhookReceiver } from 'nest-mcp/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TelemetryEventsModule } from '../fixtures/telemetry-events.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { eventsPost, resultOf } from '../support/events.util.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { OtelHarness } from '../support/otel.harness.js';
import {
  MCP_EVENT_STORE,
  type McpEventStore,
  type McpLoggedEvent,
} from '../../libs/mcp/src/protocol/event-store.interface.js';

/**
 * Spans of event deliveries (issue #27, events): an occurrence emitted inside a `tools/call` keeps that call's span
 * context, and every webhook attempt is a CLIENT span `events/deliver {event}` in a trace of its own linked to it;
 * a push on `events/stream` is an INTERNAL span `events/push {event}`, a child of the stream's span, linked the same
 * way. Real SDK (in-memory exporter), real HTTP on both adapters, the official client, the testing kit's loopback
 * webhook receiver.
 */

const TRACE_ID = '7bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '30f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;
const DELIVER = 'events/deliver incident.opened';

/** The attempts' spans, in attempt order. */
const byAttempt = (spans: ReadableSpan[]) =>
  [...spans].sort(
    (a, b) => Number(a.attributes['nest_mcp.delivery.attempt']) - Number(b.attributes['nest_mcp.delivery.attempt']),
  );

describe.each(ADAPTERS)('telemetry: event deliveries (%s)', (adapter) => {
  let otel: OtelHarness;
  let running: RunningApp;
  let target: McpWebhookReceiver;
  let mcp: Client | undefined;

  beforeEach(async () => {
    otel = OtelHarness.install();
    running = await startApp(adapter, { imports: [TelemetryEventsModule.forRoot()] });
    target = await McpWebhookReceiver.start();
  });
  afterEach(async () => {
    await mcp?.close();
    mcp = undefined;
    await target.close();
    await running.close();
    await otel.uninstall();
  });

  const subscribe = async (service: string) =>
    resultOf(
      await eventsPost(
        running.mcpUrl,
        'events/subscribe',
        {
          name: 'incident.opened',
          arguments: { service },
          delivery: { mode: 'webhook', url: target.url, secret: target.secret },
        },
        'alice',
      ),
    );
  /** The official client calls the emitting tool, continuing the trace in `_meta`. */
  const openIncident = async (id: string, service: string) => {
    mcp = await connectClient(running.mcpUrl);
    await mcp.callTool({ name: 'open_incident', arguments: { id, service }, _meta: { traceparent: TRACEPARENT } });
    return otel.span('tools/call open_incident');
  };

  it('a tool call that emits: the webhook attempt is a CLIENT span of its own trace, linked to the tools/call span', async () => {
    await subscribe('linked');
    const logged: McpLoggedEvent[] = [];
    const stop = running.app.get<McpEventStore>(MCP_EVENT_STORE).subscribe((entry) => logged.push(entry));
    const call = await openIncident('evt_linked', 'linked');
    stop();
    expect(call.spanContext().traceId).toBe(TRACE_ID);
    // The occurrence keeps the emitting span as W3C strings (what a shared log or queue can carry).
    expect(logged.map((entry) => entry.event.traceContext)).toEqual([
      { traceparent: `00-${TRACE_ID}-${call.spanContext().spanId}-01` },
    ]);
    const delivered = await target.nextEvent();
    expect(delivered.json.eventId).toBe('evt_linked');

    const [attempt] = await otel.waitForSpans(DELIVER, 1);
    expect(attempt.kind).toBe(SpanKind.CLIENT);
    expect(attempt.links).toHaveLength(1);
    expect(attempt.links[0].context.traceId).toBe(call.spanContext().traceId);
    expect(attempt.links[0].context.spanId).toBe(call.spanContext().spanId);
    // A trace of its own: a retry hours later is not the caller's trace, and is sampled on its own.
    expect(attempt.parentSpanContext).toBeUndefined();
    expect(attempt.spanContext().traceId).not.toBe(TRACE_ID);
    expect(attempt.status.code).toBe(SpanStatusCode.UNSET);
    expect(attempt.attributes).toMatchObject({
      'nest_mcp.event.name': 'incident.opened',
      'nest_mcp.kind': 'event',
      'nest_mcp.delivery.attempt': 1,
      'nest_mcp.outcome': 'delivered',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(target.url).port),
    });
    expect(attempt.attributes).not.toHaveProperty('error.type');
    // Neither the secret, nor the callback's path, nor the payload reach a span.
    const exported = JSON.stringify(otel.spans().map((span) => ({ name: span.name, attributes: span.attributes })));
    expect(exported).not.toContain(target.secret);
    expect(exported).not.toContain('/hooks');
    expect(exported).not.toContain('DB down');
  });

  it('a receiver answering 500 then 200: two attempt spans, the first an error with its status, both linked', async () => {
    await subscribe('retried');
    target.respondWith(500);
    const call = await openIncident('evt_retried', 'retried');
    await target.nextEvent();
    expect(target.events.map((event) => event.status)).toEqual([500, 200]);

    const [first, second] = byAttempt(await otel.waitForSpans(DELIVER, 2));
    expect(first.attributes).toMatchObject({
      'nest_mcp.delivery.attempt': 1,
      'nest_mcp.outcome': 'retry',
      'http.response.status_code': 500,
      'error.type': '500',
    });
    expect(first.status.code).toBe(SpanStatusCode.ERROR);
    expect(second.attributes).toMatchObject({
      'nest_mcp.delivery.attempt': 2,
      'nest_mcp.outcome': 'delivered',
      'http.response.status_code': 200,
    });
    expect(second.status.code).toBe(SpanStatusCode.UNSET);
    for (const attempt of [first, second]) {
      expect(attempt.kind).toBe(SpanKind.CLIENT);
      expect(attempt.links.map((link) => link.context.spanId)).toEqual([call.spanContext().spanId]);
    }
    // Each attempt is a trace of its own.
    expect(first.spanContext().traceId).not.toBe(second.spanContext().traceId);
  });

  it('a receiver that refuses the connection: the attempt span carries the failure category as error.type', async () => {
    await subscribe('refused');
    await target.close();
    await openIncident('evt_refused', 'refused');
    const [attempt] = await otel.waitForSpans(DELIVER, 1);
    expect(attempt.attributes).toMatchObject({ 'nest_mcp.outcome': 'retry', 'error.type': 'connection_refused' });
    expect(attempt.attributes).not.toHaveProperty('http.response.status_code');
    expect(attempt.status.code).toBe(SpanStatusCode.ERROR);
    target = await McpWebhookReceiver.start();
  });

  it('an event emitted outside any span: the attempt span has no link', async () => {
    await subscribe('unlinked');
    await running.app
      .get(McpEvents)
      .emit('incident.opened', { id: 'U-1', severity: 'P1', service: 'unlinked', title: 'x' }, { eventId: 'evt_u' });
    await target.nextEvent();
    const [attempt] = await otel.waitForSpans(DELIVER, 1);
    expect(attempt.links).toEqual([]);
    expect(attempt.attributes['nest_mcp.outcome']).toBe('delivered');
  });
});

describe('telemetry: event pushes on events/stream (testing kit, in process)', () => {
  let otel: OtelHarness;
  let running: RunningApp;
  let mcp: Client | undefined;
  beforeEach(async () => {
    otel = OtelHarness.install();
    running = await startApp('express', { imports: [TelemetryEventsModule.forRoot()] });
  });
  afterEach(async () => {
    await mcp?.close();
    await running.close();
    await otel.uninstall();
  });

  it('a push on events/stream: an INTERNAL span, child of the stream’s span, linked to the emitting tools/call', async () => {
    const client = await McpTestingClient.connect(running.app);
    const stream = await client.streamEvents('incident.opened', { service: 'pushed' });
    let call: ReadableSpan;
    try {
      mcp = await connectClient(running.mcpUrl);
      await mcp.callTool({
        name: 'open_incident',
        arguments: { id: 'evt_pushed', service: 'pushed' },
        _meta: { traceparent: TRACEPARENT },
      });
      call = otel.span('tools/call open_incident');
      expect((await stream.nextEvent()).eventId).toBe('evt_pushed');
    } finally {
      await stream.close();
    }
    const [push] = await otel.waitForSpans('events/push incident.opened', 1);
    const [streamSpan] = await otel.waitForSpans('events/stream', 1);
    expect(push.kind).toBe(SpanKind.INTERNAL);
    expect(push.parentSpanContext?.spanId).toBe(streamSpan.spanContext().spanId);
    expect(push.spanContext().traceId).toBe(streamSpan.spanContext().traceId);
    expect(push.links.map((link) => link.context.spanId)).toEqual([call.spanContext().spanId]);
    expect(push.links[0].context.traceId).toBe(TRACE_ID);
    expect(push.attributes).toMatchObject({ 'nest_mcp.event.name': 'incident.opened', 'nest_mcp.outcome': 'sent' });
  });
});

describe('telemetry: event deliveries without an SDK', () => {
  let running: RunningApp;
  let target: McpWebhookReceiver;
  afterEach(async () => {
    await target.close();
    await running.close();
  });

  it('nothing is captured at emit and nothing added to the delivery', async () => {
    running = await startApp('express', { imports: [TelemetryEventsModule.forRoot()] });
    target = await McpWebhookReceiver.start();
    const logged: McpLoggedEvent[] = [];
    running.app.get<McpEventStore>(MCP_EVENT_STORE).subscribe((entry) => logged.push(entry));
    resultOf(
      await eventsPost(
        running.mcpUrl,
        'events/subscribe',
        {
          name: 'incident.opened',
          arguments: { service: 'off' },
          delivery: { mode: 'webhook', url: target.url, secret: target.secret },
        },
        'alice',
      ),
    );
    const client = await McpTestingClient.connect(running.app);
    await client.callTool('open_incident', { id: 'evt_off', service: 'off' });
    const delivered = await target.nextEvent();
    expect(logged).toHaveLength(1);
    expect(logged[0].event).not.toHaveProperty('traceContext');
    // What the receiver gets is the occurrence alone: no trace context rides in the body.
    expect(Object.keys(delivered.json).sort()).toEqual(['cursor', 'data', 'eventId', 'name', 'timestamp']);
  });
});
