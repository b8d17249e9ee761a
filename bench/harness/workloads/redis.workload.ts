import type { BenchOptions } from '../options.js';
import { redisServerVersion } from '../redis-cluster.js';
import { scaleOutRatios } from '../scale-out-analysis.js';
import type { ScaleOutResults } from '../scale-out-result.interface.js';
import { runRedisFanOut } from './redis-fanout.workload.js';
import { runRedisLatency } from './redis-latency.workload.js';
import { runRedisTasks } from './redis-tasks.workload.js';

/** Runs one part of the workload; a failure is recorded by the caller and the next part runs. */
export type StepRunner = (name: string, work: () => Promise<void>) => Promise<void>;

/**
 * The `redis` workload (issue 16): nest-mcp-redis against the in-memory components, in one run: publish → delivery
 * latency across replicas, fan-out of one update to many listeners on three replicas, and task create → complete
 * throughput on BullMQ. Each part starts its own redis-server and processes, and stops them.
 */
export async function runScaleOut(options: BenchOptions, step: StepRunner): Promise<ScaleOutResults> {
  const results: ScaleOutResults = { redisVersion: redisServerVersion() ?? 'not installed', ratios: [] };
  await step('redis: publish → delivery latency', async () => {
    results.latency = await runRedisLatency(options);
  });
  await step('redis: fan-out', async () => {
    results.fanOut = await runRedisFanOut(options);
  });
  await step('redis: task throughput', async () => {
    results.tasks = await runRedisTasks(options);
  });
  results.ratios = scaleOutRatios(results);
  return results;
}
