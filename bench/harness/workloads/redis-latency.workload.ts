import { BENCH_ITEMS_URI } from '../../servers/shared/scale-out.constants.js';
import type { Arrivals } from '../listener-swarm.js';
import { percentile } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log, rotate } from '../progress-log.js';
import { disposeRedis, startRedis, startReplica, startSwarm, stopAll, type TimedProcess } from '../redis-cluster.js';
import type { LatencyCell, LatencyResults, LatencyVariant } from '../scale-out-result.interface.js';
import { median } from '../stats.js';

/** Listen streams receiving each update, per variant. */
export const LATENCY_LISTENERS = 10;
/** Updates per variant before the first round, unmeasured. */
const WARM_UP_UPDATES = 30;
/** Longest wait for one update to reach every listener. */
const DELIVERY_TIMEOUT_MS = 10_000;

const VARIANTS: LatencyVariant[] = ['memory', 'redis-same', 'redis-cross'];

/** Who publishes and who holds the listeners, per variant. */
interface Setup {
  publisher: TimedProcess;
  listeners: TimedProcess;
}

/** A run-wide sequence: every published URI is unique. */
let sequence = 0;

/** One cell: `updates` updates one after the other, each waited for at every listener before the next. */
async function measure(
  variant: LatencyVariant,
  setup: Setup,
  swarm: TimedProcess,
  updates: number,
): Promise<LatencyCell> {
  const latencies: number[] = [];
  const publishCalls: number[] = [];
  let missing = 0;
  for (let index = 0; index < updates; index++) {
    const current = ++sequence;
    const published = await setup.publisher.process.request<{ publishedAt: number; returnedAt: number }>('publish', {
      uri: `${BENCH_ITEMS_URI}/${variant}/${current}`,
    });
    const arrivals = await swarm.process.request<Arrivals>('await', {
      group: variant,
      sequence: current,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      withTimes: true,
    });
    const start = published.publishedAt - setup.publisher.offsetMs;
    for (const time of arrivals.times ?? []) latencies.push(time - swarm.offsetMs - start);
    missing += Math.max(0, arrivals.open - arrivals.count);
    publishCalls.push(published.returnedAt - published.publishedAt);
  }
  const sorted = Float64Array.from(latencies).sort();
  return {
    samples: latencies.length,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
    publishCallMs: median(publishCalls),
    missing,
  };
}

/**
 * Publish → delivery latency of `resourceUpdated`. Three setups, interleaved by rounds: `memory`, one process on the
 * in-memory bus publishing to its own listeners (the baseline); `redis-same`, replica A on the Redis bus publishing
 * to its own listeners (the Redis bus delivers locally at once and publishes to Redis alongside: what that costs); `redis-cross`, A publishing and the listeners on replica
 * C, a separate process (the cross-replica path the issue asks about). The listeners (raw node:http SSE) live in a
 * listener process of their own; every timestamp is related to the harness's clock (harness/clock-offset.ts).
 */
export async function runRedisLatency(options: BenchOptions): Promise<LatencyResults> {
  const updates = options.redisUpdates;
  const results: LatencyResults = { updates, listeners: LATENCY_LISTENERS, rounds: {}, medians: {} };
  const redis = await startRedis();
  const processes: TimedProcess[] = [];
  try {
    const backend = { kind: 'redis' as const, url: redis.url, keyPrefix: 'bench-latency' };
    const [memory, replicaA, replicaC, swarm] = await Promise.all([
      startReplica('in memory', { kind: 'memory' }),
      startReplica('replica A', backend),
      startReplica('replica C', backend),
      startSwarm('latency listeners'),
    ]);
    processes.push(memory, replicaA, replicaC, swarm);
    const setups: Record<LatencyVariant, Setup> = {
      memory: { publisher: memory, listeners: memory },
      'redis-same': { publisher: replicaA, listeners: replicaA },
      'redis-cross': { publisher: replicaA, listeners: replicaC },
    };
    for (const variant of VARIANTS) {
      const url = setups[variant].listeners.process.url('/mcp');
      await swarm.process.request('open', {
        group: variant,
        url,
        uri: `${BENCH_ITEMS_URI}/${variant}`,
        count: LATENCY_LISTENERS,
      });
    }
    for (const variant of VARIANTS) {
      const warm = await measure(variant, setups[variant], swarm, WARM_UP_UPDATES);
      if (warm.missing > 0)
        throw new Error(
          `${variant}: ${warm.missing} of ${WARM_UP_UPDATES * LATENCY_LISTENERS} warm-up deliveries did not arrive within ${DELIVERY_TIMEOUT_MS} ms`,
        );
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const variant of rotate(VARIANTS, round)) {
        const cell = await measure(variant, setups[variant], swarm, updates);
        (results.rounds[variant] ??= []).push(cell);
        log(
          `redis latency round ${round + 1}/${options.rounds} ${variant}: p50 ${cell.p50Ms.toFixed(2)} ms, p99 ${cell.p99Ms.toFixed(2)} ms ` +
            `over ${cell.samples} deliveries${cell.missing ? `, ${cell.missing} missing` : ''}`,
        );
      }
    }
  } finally {
    await stopAll(processes);
    await disposeRedis(redis);
  }
  for (const variant of VARIANTS) {
    const cells = results.rounds[variant] ?? [];
    const pick = (field: keyof LatencyCell) => median(cells.map((cell) => cell[field]));
    results.medians[variant] = {
      samples: pick('samples'),
      p50Ms: pick('p50Ms'),
      p99Ms: pick('p99Ms'),
      maxMs: pick('maxMs'),
      publishCallMs: pick('publishCallMs'),
      missing: cells.reduce((sum, cell) => sum + cell.missing, 0),
    };
  }
  return results;
}
