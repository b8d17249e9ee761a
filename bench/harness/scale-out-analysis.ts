import type { RatioRow } from './result.interface.js';
import type { ScaleOutResults } from './scale-out-result.interface.js';
import { pairedRatio } from './stats.js';

/**
 * The ratios of the scale-out workloads, each Redis setup against its in-memory baseline of the same run: the
 * median of the per-round ratios (the setups alternate within every round), like every ratio of the bench.
 */
export function scaleOutRatios(results: ScaleOutResults): RatioRow[] {
  const rows: RatioRow[] = [];
  const push = (name: string, metric: string, value: number) => {
    if (Number.isFinite(value)) rows.push({ name, metric, value });
  };
  const latency = results.latency?.rounds;
  if (latency?.memory) {
    const series = (variant: 'memory' | 'redis-same' | 'redis-cross', field: 'p50Ms' | 'p99Ms') =>
      (latency[variant] ?? []).map((cell) => cell[field]);
    push(
      'Redis bus, publish on A → listeners on C / in-memory bus',
      'publish→delivery p50',
      pairedRatio(series('redis-cross', 'p50Ms'), series('memory', 'p50Ms')),
    );
    push(
      'Redis bus, publish on A → listeners on C / in-memory bus',
      'publish→delivery p99',
      pairedRatio(series('redis-cross', 'p99Ms'), series('memory', 'p99Ms')),
    );
    push(
      'Redis bus, publish and listeners on A / in-memory bus',
      'publish→delivery p50',
      pairedRatio(series('redis-same', 'p50Ms'), series('memory', 'p50Ms')),
    );
  }
  const fanOut = results.fanOut;
  if (fanOut?.rounds.memory && fanOut.rounds.redis) {
    const series = (variant: 'memory' | 'redis', field: 'lastP50Ms' | 'lastP99Ms') =>
      (fanOut.rounds[variant] ?? []).map((cell) => cell[field]);
    const name = `Redis, ${fanOut.replicas} replicas / in-memory, one process`;
    const listeners = `${fanOut.listeners.toLocaleString('en-US')} listeners`;
    push(
      name,
      `fan-out to ${listeners}: to the last listener p50`,
      pairedRatio(series('redis', 'lastP50Ms'), series('memory', 'lastP50Ms')),
    );
    push(
      name,
      `fan-out to ${listeners}: to the last listener p99`,
      pairedRatio(series('redis', 'lastP99Ms'), series('memory', 'lastP99Ms')),
    );
    const replicaRss = Math.max(...fanOut.memory.replicas.map((replica) => replica.rssMb));
    push(
      `largest Redis replica (${listeners} / ${fanOut.replicas}) / in-memory process (${listeners})`,
      'RSS with the listeners open, after GC',
      replicaRss / fanOut.memory.memory.rssMb,
    );
  }
  const tasks = results.tasks?.rounds;
  if (tasks?.memory) {
    const series = (variant: 'memory' | 'redis-1' | 'redis-3') =>
      (tasks[variant] ?? []).map((cell) => cell.tasksPerSec);
    push(
      'BullMQ, 1 replica / in-memory runner',
      'task create→complete tasks/s',
      pairedRatio(series('redis-1'), series('memory')),
    );
    push(
      'BullMQ, 3 replicas / in-memory runner',
      'task create→complete tasks/s',
      pairedRatio(series('redis-3'), series('memory')),
    );
    push(
      'BullMQ, 3 replicas / BullMQ, 1 replica',
      'task create→complete tasks/s',
      pairedRatio(series('redis-3'), series('redis-1')),
    );
  }
  return rows;
}
