import type { RatioRow } from './result.interface.js';

/** The results of the `redis` workload (scale-out on Redis), stored under `redis` in the run's JSON. */

/** How the publish→delivery latency is measured: publisher and listeners on one in-memory process, or on Redis. */
export type LatencyVariant = 'memory' | 'redis-same' | 'redis-cross';

export interface LatencyCell {
  /** Deliveries measured: updates × listeners. */
  samples: number;
  /** `McpPublisher.resourceUpdated` called on the publisher → the notification frame read by a listener, ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** How long `resourceUpdated` took to return on the publisher (the Redis PUBLISH round trip, or nothing), median ms. */
  publishCallMs: number;
  /** Deliveries that did not arrive within the wait (should be 0). */
  missing: number;
}

export interface LatencyResults {
  /** Updates per cell (server variant × round). */
  updates: number;
  /** Listen streams receiving each update. */
  listeners: number;
  rounds: Partial<Record<LatencyVariant, LatencyCell[]>>;
  medians: Partial<Record<LatencyVariant, LatencyCell>>;
}

export type FanOutVariant = 'memory' | 'redis';

export interface FanOutCell {
  /** Updates in this cell, each to every listener. */
  updates: number;
  /**
   * Publish → the last listener received it, over the updates: p50 and p99 ms. In `medians`: the median of the
   * cells' p50, and the p99 of every update of every round (a cell has too few updates for its own p99).
   */
  lastP50Ms: number;
  lastP99Ms: number;
  /** Publish → the last listener received it, each update of the cell, ms. */
  lastMs: number[];
  /** Publish → half the listeners had it (median listener of each swarm, their median), p50 ms. */
  medianP50Ms: number;
  /** Publish → the first listener had it, p50 ms. */
  firstP50Ms: number;
  /** Deliveries that did not arrive within the wait (should be 0). */
  missing: number;
}

export interface FanOutMemory {
  /** MB, after forced GC, before any listener and with every listener open. */
  rssBeforeMb: number;
  rssMb: number;
  heapUsedMb: number;
  /** Listen streams this process held. */
  streams: number;
}

export interface FanOutResults {
  listeners: number;
  replicas: number;
  /** Listener processes sharing the streams (each holds its share of both variants). */
  swarms: number;
  rounds: Partial<Record<FanOutVariant, FanOutCell[]>>;
  medians: Partial<Record<FanOutVariant, FanOutCell>>;
  /** The in-memory process (all listeners), and each Redis replica (its share). */
  memory: { memory: FanOutMemory; replicas: FanOutMemory[] };
  /** Seconds to open every listener of each variant. */
  openSeconds: Partial<Record<FanOutVariant, number>>;
}

export type TaskVariant = 'memory' | 'redis-1' | 'redis-3';

export interface TaskThroughputCell {
  tasks: number;
  /** Tasks created and seen completed per second, all in flight at `concurrency`. */
  tasksPerSec: number;
  /** `tools/call` → the `tasks/get` that saw it completed, ms. */
  p50Ms: number;
  p99Ms: number;
  /** Mean `tasks/get` per task. */
  polls: number;
  failures: number;
}

export interface TaskThroughputResults {
  tasks: number;
  concurrency: number;
  /** Pause before another `tasks/get` of a task not completed yet, ms (the first is sent at once). */
  pollDelayMs: number;
  rounds: Partial<Record<TaskVariant, TaskThroughputCell[]>>;
  medians: Partial<Record<TaskVariant, TaskThroughputCell>>;
}

export interface ScaleOutResults {
  redisVersion: string;
  latency?: LatencyResults;
  fanOut?: FanOutResults;
  tasks?: TaskThroughputResults;
  /** Each Redis variant against its in-memory baseline: medians of the per-round ratios. */
  ratios: RatioRow[];
}
