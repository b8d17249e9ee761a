import { performance } from 'node:perf_hooks';
import { closeClientAgents, postJson } from '../http-client.js';
import { percentile } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log, rotate, sleep } from '../progress-log.js';
import { disposeRedis, startRedis, startReplica, stopAll, type TimedProcess } from '../redis-cluster.js';
import { TASKS_META, tasksGet } from '../scale-out-wire.js';
import type { TaskThroughputCell, TaskThroughputResults, TaskVariant } from '../scale-out-result.interface.js';
import { median } from '../stats.js';
import { toolCall } from '../wire.js';

/** Tasks in flight at once (one closed loop each). */
export const TASK_CONCURRENCY = 32;
/** Pause before polling a task again; the first `tasks/get` follows the CreateTaskResult at once. */
export const POLL_DELAY_MS = 5;
const WARM_UP_TASKS = 100;
/** Longest a task may take from creation to completion before the round trip counts as failed. */
const TASK_TIMEOUT_MS = 30_000;

const VARIANTS: TaskVariant[] = ['memory', 'redis-1', 'redis-3'];

interface TaskAnswer {
  result?: { resultType?: string; taskId?: string; status?: string; result?: { content?: { text?: string }[] } };
  error?: { message?: string };
}

/**
 * One task: `tools/call echo_task` declaring the tasks extension on one replica, then `tasks/get` (at once, then
 * every POLL_DELAY_MS) until completed, each on the next replica in turn, as a balancer without affinity would send
 * them. Returns the number of `tasks/get`; throws when the task fails, is refused, or does not complete in time.
 */
async function createAndAwait(urls: readonly string[], index: number): Promise<number> {
  const created = await postJson(
    urls[index % urls.length],
    toolCall(`create-${index}`, 'echo_task', { text: `task ${index}` }, TASKS_META),
  );
  const task = (created.json as TaskAnswer | undefined)?.result;
  if (task?.resultType !== 'task' || typeof task.taskId !== 'string')
    throw new Error(`echo_task answered ${created.status} ${created.text.slice(0, 300)}`);
  const deadline = performance.now() + TASK_TIMEOUT_MS;
  for (let polls = 1; ; polls++) {
    const got = await postJson(urls[(index + polls) % urls.length], tasksGet(`get-${index}-${polls}`, task.taskId));
    const answer = (got.json as TaskAnswer | undefined)?.result;
    if (got.status !== 200 || answer?.status === undefined)
      throw new Error(`tasks/get answered ${got.status} ${got.text.slice(0, 300)}`);
    if (answer.status === 'completed') {
      if (answer.result?.content?.[0]?.text !== `task ${index}`)
        throw new Error(`task ${task.taskId} completed with ${JSON.stringify(answer.result)?.slice(0, 300)}`);
      return polls;
    }
    if (answer.status === 'failed' || answer.status === 'cancelled')
      throw new Error(`task ${task.taskId} ${answer.status}: ${got.text.slice(0, 300)}`);
    if (performance.now() > deadline)
      throw new Error(`task ${task.taskId} still ${answer.status} after ${TASK_TIMEOUT_MS} ms`);
    await sleep(POLL_DELAY_MS);
  }
}

let nextTask = 0;

/** `count` tasks through `urls`, TASK_CONCURRENCY at a time. */
async function measure(urls: readonly string[], count: number): Promise<TaskThroughputCell> {
  // Fresh connections: a keep-alive socket left idle by the previous cells may be closed by the server just as it is
  // reused (ECONNRESET), which would count as a failed task.
  closeClientAgents();
  const latencies: number[] = [];
  let polls = 0;
  let failures = 0;
  let left = count;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(TASK_CONCURRENCY, count) }, async () => {
      while (left > 0) {
        left--;
        const begin = performance.now();
        try {
          const taskPolls = await createAndAwait(urls, nextTask++);
          polls += taskPolls;
          latencies.push(performance.now() - begin);
        } catch (error) {
          if (++failures <= 3) log(`  warning: ${(error as Error).message}`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    tasks: latencies.length,
    tasksPerSec: latencies.length / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    polls: latencies.length ? polls / latencies.length : Number.NaN,
    failures,
  };
}

/**
 * Task create → complete throughput: `echo_task` (returns at once) created TASK_CONCURRENCY at a time and polled
 * until completed, on the in-memory store and runner of one process (the baseline), on BullMQ with one replica, and
 * on BullMQ with three replicas (calls spread over them in turn, each replica's worker taking rounds from the one
 * queue). The two Redis clusters use separate key prefixes on one redis-server, so the idle one takes no work.
 */
export async function runRedisTasks(options: BenchOptions): Promise<TaskThroughputResults> {
  const results: TaskThroughputResults = {
    tasks: options.redisTasks,
    concurrency: TASK_CONCURRENCY,
    pollDelayMs: POLL_DELAY_MS,
    rounds: {},
    medians: {},
  };
  const redis = await startRedis();
  const processes: TimedProcess[] = [];
  try {
    const solo = { kind: 'redis' as const, url: redis.url, keyPrefix: 'bench-tasks-1' };
    const trio = { kind: 'redis' as const, url: redis.url, keyPrefix: 'bench-tasks-3' };
    const started = await Promise.all([
      startReplica('in memory', { kind: 'memory' }),
      startReplica('single replica', solo),
      startReplica('replica A', trio),
      startReplica('replica B', trio),
      startReplica('replica C', trio),
    ]);
    processes.push(...started);
    const url = (server: TimedProcess) => server.process.url('/mcp');
    const urls: Record<TaskVariant, string[]> = {
      memory: [url(started[0])],
      'redis-1': [url(started[1])],
      'redis-3': started.slice(2).map(url),
    };
    for (const variant of VARIANTS) {
      const warm = await measure(urls[variant], WARM_UP_TASKS);
      if (warm.failures > 0)
        throw new Error(
          `${variant}: ${warm.failures} of ${WARM_UP_TASKS} warm-up tasks failed (see the warnings above)`,
        );
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const variant of rotate(VARIANTS, round)) {
        const cell = await measure(urls[variant], options.redisTasks);
        (results.rounds[variant] ??= []).push(cell);
        log(
          `redis tasks round ${round + 1}/${options.rounds} ${variant}: ${Math.round(cell.tasksPerSec)} tasks/s, p50 ${cell.p50Ms.toFixed(1)} ms, ` +
            `p99 ${cell.p99Ms.toFixed(1)} ms, ${cell.polls.toFixed(2)} tasks/get per task${cell.failures ? `, ${cell.failures} failed` : ''}`,
        );
      }
    }
  } finally {
    await stopAll(processes);
    await disposeRedis(redis);
  }
  for (const variant of VARIANTS) {
    const cells = results.rounds[variant] ?? [];
    const pick = (field: keyof TaskThroughputCell) => median(cells.map((cell) => cell[field]));
    results.medians[variant] = {
      tasks: pick('tasks'),
      tasksPerSec: pick('tasksPerSec'),
      p50Ms: pick('p50Ms'),
      p99Ms: pick('p99Ms'),
      polls: pick('polls'),
      failures: cells.reduce((sum, cell) => sum + cell.failures, 0),
    };
  }
  return results;
}
