import { request as httpRequest, type IncomingMessage } from 'node:http';
import { McpPublisher } from 'nest-mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { McpSubscriptionsService } from '../../libs/mcp/src/subscriptions/subscriptions.service.js';
import { securityListenModule } from '../fixtures/security-listen.fixture.js';
import { StreamProbe, telemetryStreamApp } from '../fixtures/telemetry-stream.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { OtelHarness } from '../support/otel.harness.js';
import { mcpHeaders, mcpPost, requestMeta } from '../support/raw-request.util.js';
import { until } from '../support/wait.util.js';
import { sseDataFrames } from '../support/wire-schema.validator.js';

/**
 * The bounded stream queue, counted (issue #27): what a slow reader did not get shows in `nest_mcp.stream.coalesced`
 * (notifications replaced by a newer one of their kind) and `nest_mcp.stream.dropped` (lost at the bound, or the one
 * that closed a stream), by `nest_mcp.kind` — `request` for a request's SSE answer, `stream` for a long-lived stream.
 * Recorded once, when the call ends, from integers the queue bumped on the call's channel.
 */

/** Queue bounds of the request-stream tests: four frames wait, whatever their size. */
const QUEUED = 4;
const MORE = 50;
const LOGS = 7;

describe.each(ADAPTERS)('telemetry: stream queue losses (%s)', (adapter) => {
  let otel: OtelHarness;
  let running: RunningApp;
  afterEach(async () => {
    await running.close();
    await otel.uninstall();
  });

  it('a reader that is not reading: progress coalesces to the newest, logs drop, both counted exactly', async () => {
    otel = OtelHarness.install();
    running = await startApp(adapter, {
      imports: [telemetryStreamApp({ streaming: { maxQueuedFrames: QUEUED, maxQueuedBytes: 1024 * 1024 } })],
    });
    const probe = running.app.get(StreamProbe);
    const params = {
      name: 'flood',
      arguments: { progress: MORE, logs: LOGS },
      _meta: requestMeta({ progressToken: 'slow', 'io.modelcontextprotocol/logLevel': 'info' }),
    };
    const response = await fetch(running.mcpUrl, {
      method: 'POST',
      headers: mcpHeaders('tools/call', params),
      body: JSON.stringify({ jsonrpc: '2.0', id: 'flood-1', method: 'tools/call', params }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Nothing is read until the handler returned: it filled the socket, then queued MORE progress and LOGS lines
    // in the same synchronous run (no drain in between), so exactly QUEUED of them waited and the rest did not fit.
    await until(() => probe.filled !== undefined, 10_000, 'the flood handler to return');
    expect(probe.filled).toBeGreaterThan(0);
    expect(probe.filled).toBeLessThan(10_000);

    const messages = sseDataFrames(await response.text()).map(
      (data) => JSON.parse(data) as { id?: string; method?: string; params?: { message?: string } },
    );
    const more = messages.filter((m) => m.method === 'notifications/progress' && m.params?.message?.startsWith('more'));
    // The newest values arrived (each newer one took the place of the oldest of its token), the logs did not.
    expect(more.map((m) => m.params?.message)).toEqual(
      Array.from({ length: QUEUED }, (_, index) => `more ${MORE - QUEUED + index}`),
    );
    expect(messages.filter((m) => m.method === 'notifications/message')).toEqual([]);
    expect(messages.at(-1)?.id).toBe('flood-1');

    const [span] = await otel.waitForSpans('tools/call flood', 1);
    // The call's span says it too.
    expect(span.attributes).toMatchObject({
      'nest_mcp.notifications.coalesced': MORE - QUEUED,
      'nest_mcp.notifications.dropped': LOGS,
    });
    expect(await otel.points('nest_mcp.stream.coalesced')).toEqual([
      expect.objectContaining({
        attributes: { 'mcp.method.name': 'tools/call', 'nest_mcp.kind': 'request' },
        value: MORE - QUEUED,
      }),
    ]);
    expect(await otel.points('nest_mcp.stream.dropped')).toEqual([
      expect.objectContaining({
        attributes: { 'mcp.method.name': 'tools/call', 'nest_mcp.kind': 'request', 'nest_mcp.reason': 'queue_full' },
        value: LOGS,
      }),
    ]);
  });

  it('a listen stream that overflows with changes it cannot coalesce is closed and counted as a disconnect', async () => {
    otel = OtelHarness.install();
    running = await startApp(adapter, {
      imports: [securityListenModule({ streaming: { maxQueuedFrames: 8, maxQueuedBytes: 64 * 1024 } })],
    });
    const subs = running.app.get(McpSubscriptionsService);
    const publisher = running.app.get(McpPublisher);
    const stalled = await stalledListener(running.mcpUrl, 'big://x');
    expect(subs.openStreams).toBe(1);
    // Updates of distinct URIs, ~4 KiB each: none replaces another, so once the socket is full the ninth one waiting
    // overflows the queue and the server closes the stream. Published until that happened (bounded).
    const padding = 'p'.repeat(4 * 1024);
    let published = 0;
    while (subs.openStreams === 1 && published < 20_000) {
      await publisher.resourceUpdated(`big://x/${published}-${padding}`);
      published++;
      if (published % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(subs.openStreams, 'the stalled listener was not disconnected').toBe(0);
    stalled.resume();
    await until(() => stalled.ended, 5_000, 'the stream to end on the client');

    const [span] = await otel.waitForSpans('subscriptions/listen', 1);
    expect(span.attributes['nest_mcp.notifications.dropped']).toBe(1);
    expect(span.attributes).not.toHaveProperty('nest_mcp.notifications.coalesced');
    expect(await otel.points('nest_mcp.stream.dropped')).toEqual([
      expect.objectContaining({
        attributes: {
          'mcp.method.name': 'subscriptions/listen',
          'nest_mcp.kind': 'stream',
          'nest_mcp.reason': 'disconnect',
        },
        value: 1,
      }),
    ]);
    // Every URI was distinct: nothing was coalesced.
    expect(await otel.points('nest_mcp.stream.coalesced')).toEqual([]);
    // The server still serves.
    const answer = await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'ping', arguments: {} } });
    expect(answer.status).toBe(200);
  });
});

/** Opens `subscriptions/listen` on `uri` with a raw client that stops reading after the acknowledgement. */
async function stalledListener(url: URL, uri: string) {
  const params = { notifications: { resourceSubscriptions: [uri] }, _meta: requestMeta() };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'stalled', method: 'subscriptions/listen', params });
  const headers = { ...mcpHeaders('subscriptions/listen'), 'content-length': String(Buffer.byteLength(body)) };
  const outgoing = httpRequest(url, { method: 'POST', headers, agent: false });
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end(body);
  });
  expect(response.statusCode).toBe(200);
  response.setEncoding('utf8');
  const state = { text: '', ended: false };
  response.on('data', (chunk: string) => (state.text += chunk));
  response.once('close', () => (state.ended = true));
  // Ignored: the server resets the connection when it gives up on the stream.
  response.once('error', () => undefined);
  outgoing.once('error', () => undefined);
  await until(() => state.text.includes('notifications/subscriptions/acknowledged'), 3_000, 'the acknowledgement');
  response.pause();
  return {
    get ended() {
      return state.ended;
    },
    resume: () => response.resume(),
  };
}
