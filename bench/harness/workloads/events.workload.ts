import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { BENCH_EVENT, BENCH_TICKS_URI } from '../../servers/shared/events-bench.constants.js';
import { preciseNow } from '../../servers/shared/precise-clock.js';
import { measureClockOffset } from '../clock-offset.js';
import { percentile, runLoad } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log } from '../progress-log.js';
import { resourceListen } from '../scale-out-wire.js';
import { ServerProcess } from '../server-process.js';
import { median, round } from '../stats.js';
import { requestMeta, type WireRequest } from '../wire.js';

const SCRIPT = 'nest-mcp-events.server.js';
const ADAPTERS = ['express', 'fastify'] as const;
/** Longest wait for a burst to arrive. */
const ARRIVAL_TIMEOUT_MS = 60_000;

/** One push-or-listen measurement: a burst of `count` emitted back to back. */
export interface EventsBurstCell {
  /** Notifications received per second, from the first emit to the last arrival. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** The `events` workload's results, per adapter. */
export interface EventsAdapterResults {
  /** `events/stream` (`notifications/events/event`), medians over the rounds. */
  push: EventsBurstCell;
  /** The baseline: `subscriptions/listen` (`notifications/resources/updated`) of the same burst size. */
  listen: EventsBurstCell;
  /** push / listen, of the medians (rate: > 1 is faster; latency p50: > 1 is slower). */
  pushRateRatio: number;
  pushLatencyRatio: number;
  /** Signed webhook deliveries per second to a loopback receiver that verifies every signature. */
  webhookPerSecond: number;
  /** `events/poll` calls per second returning `pollBatch` events each, and the events per second that makes. */
  pollPerSecond: number;
  pollEventsPerSecond: number;
}

export interface EventsResults {
  burst: number;
  pollBatch: number;
  adapters: Partial<Record<(typeof ADAPTERS)[number], EventsAdapterResults>>;
}

const headers = (method: string, name?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...(name === undefined ? {} : { 'mcp-name': name }),
});
const wire = (id: string | number, method: string, params: Record<string, unknown>, name?: string): WireRequest => ({
  headers: headers(method, name),
  body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: requestMeta() } }),
});

/** A POST whose SSE frames are handed to `onFrame` (its `data:` JSON) until `close()`. */
function openStream(
  url: string,
  request: WireRequest,
  onFrame: (message: Record<string, any>) => void,
): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: 'POST', headers: request.headers }, (response: IncomingMessage) => {
      if (!String(response.headers['content-type']).startsWith('text/event-stream')) {
        response.resume();
        return reject(new Error(`expected an SSE stream, got ${response.statusCode}`));
      }
      let buffer = '';
      let first = true;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const data = frame
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          if (data) onFrame(JSON.parse(data) as Record<string, any>);
          if (first) {
            first = false;
            resolve({ close: () => outgoing.destroy() });
          }
        }
      });
      response.on('error', () => undefined);
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

async function post(url: string, request: WireRequest): Promise<Record<string, any>> {
  const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  const json = (await response.json()) as { result?: Record<string, any>; error?: unknown };
  if (!json.result) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json.result;
}

/** Emits a burst on the server and collects the arrival times (harness clock) until `count` arrived. */
async function burst(
  server: ServerProcess,
  offsetMs: number,
  kind: 'event' | 'listen',
  count: number,
  arrivals: Array<{ sentAt: number; at: number }>,
): Promise<EventsBurstCell> {
  arrivals.length = 0;
  const emitted = await server.request<{ startedAt: number; endedAt: number }>(
    'emit',
    { kind, count },
    ARRIVAL_TIMEOUT_MS,
  );
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  while (arrivals.length < count) {
    if (Date.now() > deadline) throw new Error(`${kind}: ${arrivals.length} of ${count} arrived`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const latencies = Float64Array.from(arrivals.map((arrival) => arrival.at - (arrival.sentAt - offsetMs))).sort();
  const last = Math.max(...arrivals.map((arrival) => arrival.at));
  return {
    perSecond: count / ((last - (emitted.startedAt - offsetMs)) / 1000),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

/** A loopback receiver that verifies every delivery with `standardwebhooks` and answers challenges. */
async function startReceiver(
  secret: string,
): Promise<{ url: string; verified: () => number; times: number[]; close(): Promise<void> }> {
  const webhook = new Webhook(secret.slice('whsec_'.length));
  let verified = 0;
  const times: number[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const payload = webhook.verify(body, incoming.headers as Record<string, string>) as Record<string, any>;
        if (payload.type === 'verification')
          return outgoing
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ challenge: payload.challenge }));
        verified++;
        times.push(preciseNow());
        outgoing.writeHead(204).end();
      } catch {
        outgoing.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    verified: () => verified,
    times,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function measureAdapter(
  adapter: (typeof ADAPTERS)[number],
  options: BenchOptions,
  count: number,
  pollBatch: number,
): Promise<EventsAdapterResults> {
  const server = await ServerProcess.start(`nest-mcp-${adapter} events`, {
    script: SCRIPT,
    args: ['--adapter', adapter],
  });
  try {
    const url = server.url('/mcp');
    const { offsetMs } = await measureClockOffset(server);
    const frames = { push: 0 };
    const arrivals = {
      push: [] as Array<{ sentAt: number; at: number }>,
      listen: [] as Array<{ sentAt: number; at: number }>,
    };
    const push = await openStream(
      url,
      wire('stream-1', 'events/stream', { name: BENCH_EVENT, arguments: {}, cursor: null }, BENCH_EVENT),
      (message) => {
        frames.push++;
        if (message.method === 'notifications/events/event')
          arrivals.push.push({ sentAt: message.params.data.sentAt, at: preciseNow() });
      },
    );
    const listen = await openStream(url, resourceListen('listen-1', BENCH_TICKS_URI), (message) => {
      if (message.method !== 'notifications/resources/updated') return;
      const sentAt = Number(String(message.params.uri).split('/').at(-1));
      arrivals.listen.push({ sentAt, at: preciseNow() });
    });
    const cells = { push: [] as EventsBurstCell[], listen: [] as EventsBurstCell[] };
    try {
      // Warm-up, unmeasured; then interleaved rounds.
      await burst(server, offsetMs, 'event', Math.min(count, 200), arrivals.push).catch((error: Error) => {
        throw new Error(`${error.message} (${frames.push} frames)`);
      });
      await burst(server, offsetMs, 'listen', Math.min(count, 200), arrivals.listen);
      for (let round = 0; round < options.rounds; round++) {
        const order: Array<'push' | 'listen'> = round % 2 ? ['listen', 'push'] : ['push', 'listen'];
        for (const which of order)
          cells[which].push(
            await burst(server, offsetMs, which === 'push' ? 'event' : 'listen', count, arrivals[which]),
          );
      }
    } finally {
      push.close();
      listen.close();
    }
    const summary = (list: EventsBurstCell[]): EventsBurstCell => ({
      perSecond: round(median(list.map((cell) => cell.perSecond)), 0),
      p50Ms: round(median(list.map((cell) => cell.p50Ms)), 3),
      p99Ms: round(median(list.map((cell) => cell.p99Ms)), 3),
    });

    // Signed webhook deliveries: one subscription, a burst, deliveries per second as the receiver verified them.
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    const receiver = await startReceiver(secret);
    let webhookPerSecond = Number.NaN;
    try {
      await post(
        url,
        wire(
          'sub-1',
          'events/subscribe',
          { name: BENCH_EVENT, arguments: {}, delivery: { mode: 'webhook', url: receiver.url, secret } },
          BENCH_EVENT,
        ),
      );
      const rates: number[] = [];
      for (let round = 0; round < options.rounds; round++) {
        const before = receiver.verified();
        const started = preciseNow();
        await server.request('emit', { kind: 'event', count }, ARRIVAL_TIMEOUT_MS);
        const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
        while (receiver.verified() < before + count) {
          if (Date.now() > deadline) throw new Error(`webhooks: ${receiver.verified() - before} of ${count} delivered`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        rates.push(count / ((receiver.times.at(-1)! - started) / 1000));
      }
      webhookPerSecond = round(median(rates), 0);
      await post(
        url,
        wire(
          'unsub-1',
          'events/unsubscribe',
          { name: BENCH_EVENT, arguments: {}, delivery: { url: receiver.url } },
          BENCH_EVENT,
        ),
      );
    } finally {
      await receiver.close();
    }

    // Poll throughput: a cursor from before `pollBatch` events, polled again and again (each answer the same batch).
    const start = await post(
      url,
      wire('poll-0', 'events/poll', { name: BENCH_EVENT, arguments: {}, cursor: null }, BENCH_EVENT),
    );
    await server.request('emit', { kind: 'event', count: pollBatch }, ARRIVAL_TIMEOUT_MS);
    const pollRequest = wire(
      'poll-1',
      'events/poll',
      { name: BENCH_EVENT, arguments: {}, cursor: start.cursor, maxEvents: pollBatch },
      BENCH_EVENT,
    );
    const check = await post(url, pollRequest);
    if (check.events.length !== pollBatch)
      throw new Error(`poll: ${check.events.length} events, expected ${pollBatch}`);
    await runLoad({ url, request: pollRequest, connections: 16, seconds: options.warmupSeconds });
    const polls: number[] = [];
    for (let round = 0; round < options.rounds; round++)
      polls.push((await runLoad({ url, request: pollRequest, connections: 16, seconds: options.echoSeconds })).rps);
    const pollPerSecond = round(median(polls), 0);

    const pushSummary = summary(cells.push);
    const listenSummary = summary(cells.listen);
    return {
      push: pushSummary,
      listen: listenSummary,
      pushRateRatio: round(pushSummary.perSecond / listenSummary.perSecond, 2),
      pushLatencyRatio: round(pushSummary.p50Ms / listenSummary.p50Ms, 2),
      webhookPerSecond,
      pollPerSecond,
      pollEventsPerSecond: pollPerSecond * pollBatch,
    };
  } finally {
    await server.stop();
  }
}

/**
 * The `events` workload (issue #26), per adapter, on one server process: the delivery rate and publish → delivery
 * latency of an `events/stream` against `subscriptions/listen` notifications of the same burst (interleaved rounds,
 * medians; timestamps related to the harness's clock), signed webhook deliveries per second to a loopback receiver
 * that verifies each one with `standardwebhooks`, and `events/poll` throughput (16 connections) with a batch of events
 * per answer.
 */
export async function runEvents(options: BenchOptions): Promise<EventsResults> {
  const count = options.mode === 'quick' ? 1_000 : 5_000;
  const pollBatch = 100;
  const results: EventsResults = { burst: count, pollBatch, adapters: {} };
  for (const adapter of ADAPTERS) {
    log(`events (${adapter}): bursts of ${count}`);
    results.adapters[adapter] = await measureAdapter(adapter, options, count, pollBatch);
  }
  return results;
}

/** The `events` results as a Markdown table. */
export function renderEvents(results: EventsResults): string {
  const lines = [
    `### Events (bursts of ${results.burst}; polls of ${results.pollBatch} events)`,
    '',
    '| Adapter | events/stream /s | p50 ms | p99 ms | listen /s | p50 ms | p99 ms | push/listen rate | push/listen p50 | webhooks /s | polls /s | polled events /s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [adapter, cell] of Object.entries(results.adapters)) {
    if (!cell) continue;
    lines.push(
      `| ${adapter} | ${cell.push.perSecond} | ${cell.push.p50Ms} | ${cell.push.p99Ms} | ${cell.listen.perSecond} | ${cell.listen.p50Ms} | ${cell.listen.p99Ms} | ${cell.pushRateRatio} | ${cell.pushLatencyRatio} | ${cell.webhookPerSecond} | ${cell.pollPerSecond} | ${cell.pollEventsPerSecond} |`,
    );
  }
  return lines.join('\n');
}
