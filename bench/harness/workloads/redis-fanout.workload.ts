import { spawnSync } from 'node:child_process';
import { BENCH_ITEMS_URI } from '../../servers/shared/scale-out.constants.js';
import type { Arrivals } from '../listener-swarm.js';
import { percentile } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log, rotate, sleep } from '../progress-log.js';
import { disposeRedis, startRedis, startReplica, startSwarm, stopAll, type TimedProcess } from '../redis-cluster.js';
import type { FanOutCell, FanOutMemory, FanOutResults, FanOutVariant } from '../scale-out-result.interface.js';
import { median } from '../stats.js';

const MB = 1024 * 1024;
export const FANOUT_REPLICAS = 3;
/** Updates per variant before the first round, unmeasured. */
const WARM_UP_UPDATES = 3;
/** Longest wait for one update to reach every listener. */
const DELIVERY_TIMEOUT_MS = 60_000;
/** Quiet time after an update reached everyone, so that the next one starts on idle servers. */
const SETTLE_MS = 250;

const VARIANTS: FanOutVariant[] = ['memory', 'redis'];

/** `total` split into `parts` shares differing by at most one (10,000 → 3,334 + 3,333 + 3,333). */
function shares(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, index) => Math.floor(total / parts) + (index < total % parts ? 1 : 0));
}

/**
 * The in-memory server holds one socket per listener, and each listener process a third of both sets: refuse to
 * start (rather than fail with EMFILE half-way) when `ulimit -n`, which every child inherits, is too low.
 */
function checkFileLimit(listeners: number): void {
  const limit = Number(spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim());
  const needed = listeners + 1_000;
  if (Number.isFinite(limit) && limit < needed) {
    throw new Error(
      `ulimit -n is ${limit}: the fan-out to ${listeners} listeners needs about ${needed} open files per process; raise it (ulimit -n ${needed}) or pass --fanout-listeners`,
    );
  }
}

let sequence = 0;

/** One cell: `updates` updates, each waited for at every listener of every swarm. */
async function measure(
  variant: FanOutVariant,
  publisher: TimedProcess,
  swarms: TimedProcess[],
  updates: number,
): Promise<FanOutCell> {
  const last: number[] = [];
  const middle: number[] = [];
  const first: number[] = [];
  let missing = 0;
  for (let index = 0; index < updates; index++) {
    const current = ++sequence;
    const published = await publisher.process.request<{ publishedAt: number }>('publish', {
      uri: `${BENCH_ITEMS_URI}/fan-${variant}/${current}`,
    });
    const start = published.publishedAt - publisher.offsetMs;
    const arrivals = await Promise.all(
      swarms.map((swarm) =>
        swarm.process.request<Arrivals>(
          'await',
          { group: variant, sequence: current, timeoutMs: DELIVERY_TIMEOUT_MS },
          DELIVERY_TIMEOUT_MS + 10_000,
        ),
      ),
    );
    const local = (value: number, swarm: TimedProcess) => value - swarm.offsetMs - start;
    last.push(Math.max(...arrivals.map((got, at) => local(got.last, swarms[at]))));
    first.push(Math.min(...arrivals.map((got, at) => local(got.first, swarms[at]))));
    middle.push(median(arrivals.map((got, at) => local(got.median, swarms[at]))));
    missing += arrivals.reduce((sum, got) => sum + Math.max(0, got.open - got.count), 0);
    await sleep(SETTLE_MS);
  }
  const sorted = Float64Array.from(last).sort();
  return {
    updates,
    lastP50Ms: percentile(sorted, 0.5),
    lastP99Ms: percentile(sorted, 0.99),
    lastMs: last,
    medianP50Ms: median(middle),
    firstP50Ms: median(first),
    missing,
  };
}

async function reading(server: TimedProcess, before: NodeJS.MemoryUsage, streams: number): Promise<FanOutMemory> {
  const now = await server.process.memory(true);
  return { rssBeforeMb: before.rss / MB, rssMb: now.rss / MB, heapUsedMb: now.heapUsed / MB, streams };
}

/**
 * Fan-out of one `resourceUpdated` to `fanOutListeners` listen streams: on one in-memory process holding all of them
 * (the baseline), and on three Redis replicas holding a third each, published on replica A. Both sets of streams
 * are held open at once by the same three listener processes (each holds a third of each set, so the client side
 * is the same for both), and the variants alternate by rounds. Also the memory of each server with its listeners.
 */
export async function runRedisFanOut(options: BenchOptions): Promise<FanOutResults> {
  const listeners = options.fanOutListeners;
  checkFileLimit(listeners);
  const split = shares(listeners, FANOUT_REPLICAS);
  const results: FanOutResults = {
    listeners,
    replicas: FANOUT_REPLICAS,
    swarms: FANOUT_REPLICAS,
    rounds: {},
    medians: {},
    memory: {
      memory: { rssBeforeMb: Number.NaN, rssMb: Number.NaN, heapUsedMb: Number.NaN, streams: 0 },
      replicas: [],
    },
    openSeconds: {},
  };
  const redis = await startRedis();
  const processes: TimedProcess[] = [];
  try {
    const backend = { kind: 'redis' as const, url: redis.url, keyPrefix: 'bench-fanout' };
    const started = await Promise.all([
      startReplica('in memory', { kind: 'memory' }),
      ...split.map((_, index) => startReplica(`replica ${'ABC'[index] ?? index}`, backend)),
      ...split.map((_, index) => startSwarm(`listeners ${index + 1}`)),
    ]);
    processes.push(...started);
    const memoryServer = started[0];
    const replicas = started.slice(1, 1 + FANOUT_REPLICAS);
    const swarms = started.slice(1 + FANOUT_REPLICAS);
    const servers = [memoryServer, ...replicas];
    const before = await Promise.all(servers.map((server) => server.process.memory(true)));

    const open = async (variant: FanOutVariant) => {
      const begun = Date.now();
      await Promise.all(
        swarms.map((swarm, index) => {
          const server = variant === 'memory' ? memoryServer : replicas[index];
          return swarm.process.request(
            'open',
            {
              group: variant,
              url: server.process.url('/mcp'),
              uri: `${BENCH_ITEMS_URI}/fan-${variant}`,
              count: split[index],
            },
            300_000,
          );
        }),
      );
      results.openSeconds[variant] = (Date.now() - begun) / 1000;
      log(
        `  ${listeners.toLocaleString('en-US')} listeners open on ${variant === 'memory' ? 'the in-memory process' : `${FANOUT_REPLICAS} Redis replicas`} in ${results.openSeconds[variant]?.toFixed(1)} s`,
      );
    };
    for (const variant of VARIANTS) await open(variant);
    await sleep(1_000);
    results.memory.memory = await reading(memoryServer, before[0], listeners);
    results.memory.replicas = await Promise.all(
      replicas.map((replica, index) => reading(replica, before[index + 1], split[index])),
    );

    const publisherOf = (variant: FanOutVariant) => (variant === 'memory' ? memoryServer : replicas[0]);
    for (const variant of VARIANTS) {
      const warm = await measure(variant, publisherOf(variant), swarms, WARM_UP_UPDATES);
      if (warm.missing > 0)
        throw new Error(
          `${variant}: ${warm.missing} deliveries of the warm-up did not arrive within ${DELIVERY_TIMEOUT_MS} ms`,
        );
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const variant of rotate(VARIANTS, round)) {
        const cell = await measure(variant, publisherOf(variant), swarms, options.fanOutUpdates);
        (results.rounds[variant] ??= []).push(cell);
        log(
          `redis fan-out round ${round + 1}/${options.rounds} ${variant}: last listener p50 ${cell.lastP50Ms.toFixed(1)} ms, p99 ${cell.lastP99Ms.toFixed(1)} ms; ` +
            `median listener ${cell.medianP50Ms.toFixed(1)} ms${cell.missing ? `; ${cell.missing} missing` : ''}`,
        );
      }
    }
  } finally {
    await stopAll(processes);
    await disposeRedis(redis);
  }
  for (const variant of VARIANTS) {
    const cells = results.rounds[variant] ?? [];
    const pick = (field: 'lastP50Ms' | 'medianP50Ms' | 'firstP50Ms') => median(cells.map((cell) => cell[field]));
    const pooled = Float64Array.from(cells.flatMap((cell) => cell.lastMs)).sort();
    results.medians[variant] = {
      updates: pooled.length,
      lastP50Ms: pick('lastP50Ms'),
      lastP99Ms: percentile(pooled, 0.99),
      lastMs: [],
      medianP50Ms: pick('medianP50Ms'),
      firstP50Ms: pick('firstP50Ms'),
      missing: cells.reduce((sum, cell) => sum + cell.missing, 0),
    };
  }
  return results;
}
