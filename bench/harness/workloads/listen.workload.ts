import { type HeldStream, openHeldStream } from '../http-client.js';
import type { BenchOptions } from '../options.js';
import { log, rotate, sleep } from '../progress-log.js';
import type { ListenCell, ListenResults } from '../result.interface.js';
import { ServerProcess } from '../server-process.js';
import { SERVERS, type ServerId } from '../servers.js';
import { median } from '../stats.js';
import { subscriptionsListen } from '../wire.js';

const KB = 1024;
const MB = 1024 * 1024;
/** Streams opened at once while filling up. */
const OPEN_BATCH = 100;

/** The servers that serve `subscriptions/listen`, and why the others are left out. */
export const LISTEN_SERVERS: ServerId[] = ['nest-mcp-express', 'nest-mcp-fastify', 'sdk'];
export const LISTEN_NOTES = [
  'Floors have no listen streams.',
  'official SDK v2: served by createMcpHandler; its default cap is 1,024 subscriptions (`maxSubscriptions`), raised to 20,000 in the bench server.',
  '@rekog/mcp-nest 2.0.5: not measured. Its StreamableHttpTransport builds createMcpHandler without a `maxSubscriptions` option, so it is capped at the SDK default of 1,024 open subscriptions.',
];

/** Longest wait for the server to notice that the client closed every stream. */
const DRAIN_TIMEOUT_MS = 60_000;

/**
 * Waits until the server reports no open listen stream (its `listen-open` diagnostic), so that the "after closing"
 * reading measures what stays behind rather than closes still queued; at most DRAIN_TIMEOUT_MS, then one more second.
 */
async function waitUntilClosed(server: ServerProcess): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if ((await server.request<number>('listen-open')) === 0) break;
    await sleep(250);
  }
  await sleep(1_000);
}

/**
 * Holds `listenStreams` idle `subscriptions/listen` streams open on a fresh server (each acknowledged), and divides
 * the memory they cost (after forced GC, against a baseline taken the same way) by their number.
 */
export async function runListen(ids: readonly ServerId[], options: BenchOptions): Promise<ListenResults> {
  const results: ListenResults = { streams: options.listenStreams, rounds: {}, medians: {}, notes: LISTEN_NOTES };
  const rounds = options.mode === 'quick' ? 1 : 3;
  let nextId = 1;
  for (let round = 0; round < rounds; round++) {
    for (const id of rotate(ids, round)) {
      const spec = SERVERS[id];
      const server = await ServerProcess.start(spec.label, spec.launch);
      const held: HeldStream[] = [];
      try {
        const url = server.url(spec.streamPath);
        // Warm the listen path (and check it acknowledges) before the baseline.
        for (let index = 0; index < 20; index++)
          held.push(await openHeldStream(url, subscriptionsListen(`warm-${nextId++}`)));
        if (!held[0].firstFrame.includes('notifications/subscriptions/acknowledged')) {
          throw new Error(
            `${spec.label}: the first listen frame is not an acknowledgement: ${held[0].firstFrame.slice(0, 200)}`,
          );
        }
        for (const stream of held.splice(0)) stream.close();
        await sleep(500);
        const baseline = await server.memory(true);
        const started = Date.now();
        while (held.length < options.listenStreams) {
          const batch = Math.min(OPEN_BATCH, options.listenStreams - held.length);
          held.push(
            ...(await Promise.all(
              Array.from({ length: batch }, () => openHeldStream(url, subscriptionsListen(nextId++))),
            )),
          );
        }
        const openSeconds = (Date.now() - started) / 1000;
        await sleep(500);
        const open = await server.memory(true);
        for (const stream of held.splice(0)) stream.close();
        const closedAt = Date.now();
        await waitUntilClosed(server);
        const drainSeconds = (Date.now() - closedAt) / 1000;
        const closed = await server.memory(true);
        const cell: ListenCell = {
          streams: options.listenStreams,
          rssKbPerStream: (open.rss - baseline.rss) / KB / options.listenStreams,
          heapKbPerStream: (open.heapUsed - baseline.heapUsed) / KB / options.listenStreams,
          openSeconds,
          drainSeconds,
          rssAfterCloseMb: (closed.rss - baseline.rss) / MB,
          heapAfterCloseMb: (closed.heapUsed - baseline.heapUsed) / MB,
        };
        (results.rounds[id] ??= []).push(cell);
        log(
          `listen round ${round + 1}/${rounds} ${id}: ${options.listenStreams} streams in ${openSeconds.toFixed(1)} s, ` +
            `${cell.rssKbPerStream.toFixed(1)} KB RSS / ${cell.heapKbPerStream.toFixed(1)} KB heap per stream; ` +
            `all gone ${drainSeconds.toFixed(1)} s after closing, then ${cell.rssAfterCloseMb.toFixed(1)} MB RSS / ${cell.heapAfterCloseMb.toFixed(1)} MB heap above baseline`,
        );
      } finally {
        for (const stream of held) stream.close();
        await server.stop();
      }
    }
  }
  for (const id of ids) {
    const cells = results.rounds[id] ?? [];
    const pick = (field: keyof ListenCell) => median(cells.map((cell) => cell[field]));
    results.medians[id] = {
      streams: options.listenStreams,
      rssKbPerStream: pick('rssKbPerStream'),
      heapKbPerStream: pick('heapKbPerStream'),
      openSeconds: pick('openSeconds'),
      drainSeconds: pick('drainSeconds'),
      rssAfterCloseMb: pick('rssAfterCloseMb'),
      heapAfterCloseMb: pick('heapAfterCloseMb'),
    };
  }
  return results;
}
