import { Module } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/client';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { McpWebhookReceiver } from 'nest-mcp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisEventsReplicaModule } from '../fixtures/redis-events.fixture.js';
import { EmittingTools } from '../fixtures/telemetry-events.fixture.js';
import { startApp, type RunningApp } from '../support/app.factory.js';
import { eventsPost, resultOf } from '../support/events.util.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { OtelHarness } from '../support/otel.harness.js';
import { closeReplica } from '../support/redis-replicas.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * Delivery spans with the events extension on Redis (issue #27, events): the emitting span's context travels as W3C
 * strings in the occurrence on the Redis Streams log and in the BullMQ delivery job, and comes back checked, so each
 * attempt's span — a retry too, which is a new delayed job — and a replay read back from the log link to the
 * `tools/call` that emitted. Real redis-server, real SDK (in-memory exporter), the official client.
 */

const TRACE_ID = '8bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-40f067aa0ba902b7-01`;
const DELIVER = 'events/deliver incident.opened';

const byAttempt = (spans: ReadableSpan[]) =>
  [...spans].sort(
    (a, b) => Number(a.attributes['nest_mcp.delivery.attempt']) - Number(b.attributes['nest_mcp.delivery.attempt']),
  );

describe('telemetry: event deliveries on Redis (BullMQ)', () => {
  let redis: RedisServer;
  let otel: OtelHarness;
  let running: RunningApp;
  const receivers: McpWebhookReceiver[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    otel = OtelHarness.install();
    @Module({
      imports: [
        RedisEventsReplicaModule.forRoot({ url: redis.url, keyPrefix: 'otel-events', commandTimeoutMs: 1_000 }),
      ],
      providers: [EmittingTools],
    })
    class ReplicaWithTool {}
    running = await startApp('express', { imports: [ReplicaWithTool] });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    for (const receiver of receivers.splice(0)) await receiver.close();
    otel.exporter.reset();
  });
  afterAll(async () => {
    if (running) await closeReplica(running);
    await otel?.uninstall();
    await redis?.dispose();
  });

  const receiver = async () => {
    const started = await McpWebhookReceiver.start();
    receivers.push(started);
    return started;
  };
  const subscribe = async (target: McpWebhookReceiver, service: string, cursor?: string) =>
    resultOf(
      await eventsPost(
        running.mcpUrl,
        'events/subscribe',
        {
          name: 'incident.opened',
          arguments: { service },
          delivery: { mode: 'webhook', url: target.url, secret: target.secret },
          ...(cursor !== undefined && { cursor }),
        },
        'alice',
      ),
    );
  const openIncident = async (id: string, service: string) => {
    const mcp = await connectClient(running.mcpUrl);
    clients.push(mcp);
    await mcp.callTool({ name: 'open_incident', arguments: { id, service }, _meta: { traceparent: TRACEPARENT } });
    return otel.span('tools/call open_incident');
  };

  it('500 then 200 through the BullMQ queue: two attempt spans, each a new job, both linked to the tools/call', async () => {
    const target = await receiver();
    await subscribe(target, 'queued');
    target.respondWith(500);
    const call = await openIncident('evt_queued', 'queued');
    await target.nextEvent(10_000);
    expect(target.events.map((event) => event.status)).toEqual([500, 200]);

    const [first, second] = byAttempt(await otel.waitForSpans(DELIVER, 2, 10_000));
    expect(first.attributes).toMatchObject({
      'nest_mcp.delivery.attempt': 1,
      'nest_mcp.outcome': 'retry',
      'error.type': '500',
      'http.response.status_code': 500,
    });
    expect(first.status.code).toBe(SpanStatusCode.ERROR);
    expect(second.attributes).toMatchObject({ 'nest_mcp.delivery.attempt': 2, 'nest_mcp.outcome': 'delivered' });
    for (const attempt of [first, second]) {
      expect(attempt.kind).toBe(SpanKind.CLIENT);
      expect(attempt.parentSpanContext).toBeUndefined();
      expect(attempt.links).toHaveLength(1);
      expect(attempt.links[0].context.traceId).toBe(TRACE_ID);
      expect(attempt.links[0].context.spanId).toBe(call.spanContext().spanId);
    }
  });

  it('a subscription replaying from a cursor: the occurrence read back from the Redis Streams log keeps its link', async () => {
    const start = resultOf(
      await eventsPost(running.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: { service: 'replayed' },
        cursor: null,
      }),
    ).cursor as string;
    // Emitted while nobody subscribed: it only lives in the log.
    const call = await openIncident('evt_replayed', 'replayed');
    expect(otel.spans('events/deliver')).toEqual([]);
    const target = await receiver();
    await subscribe(target, 'replayed', start);
    expect((await target.nextEvent(10_000)).json.eventId).toBe('evt_replayed');

    const [attempt] = await otel.waitForSpans(DELIVER, 1, 10_000);
    expect(attempt.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
      [TRACE_ID, call.spanContext().spanId],
    ]);
    expect(attempt.attributes['nest_mcp.outcome']).toBe('delivered');
  });
});
