import { performance } from 'node:perf_hooks';
import { verifyEcho } from '../fleet.js';
import { postJson } from '../http-client.js';
import { percentile, runLoad } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log, rotate } from '../progress-log.js';
import type { TasksCell, TasksResults } from '../result.interface.js';
import { ServerProcess } from '../server-process.js';
import { SERVERS, type ServerId } from '../servers.js';
import { median } from '../stats.js';
import { requestMeta, toolCall, type WireRequest } from '../wire.js';

export const TASKS_SERVERS: ServerId[] = ['nest-mcp-express', 'nest-mcp-fastify'];
const CONCURRENCY = 16;
const TASKS_META = {
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: { form: {} },
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  },
};

interface TaskAnswer {
  result?: { resultType?: string; taskId?: string; status?: string; result?: { content?: { text?: string }[] } };
}

function tasksGet(id: string | number, taskId: string): WireRequest {
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tasks/get',
      'mcp-name': taskId,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tasks/get',
      params: { taskId, _meta: requestMeta(TASKS_META) },
    }),
  };
}

/** One round trip: `tools/call echo_task` (a CreateTaskResult), then `tasks/get` at once and again until completed; the number of `tasks/get`. */
async function roundTrip(url: string, create: WireRequest): Promise<number> {
  const created = await postJson(url, create);
  const task = (created.json as TaskAnswer | undefined)?.result;
  if (task?.resultType !== 'task' || typeof task.taskId !== 'string')
    throw new Error(`echo_task answered ${created.status} ${created.text.slice(0, 300)}`);
  // The result is only in a `tasks/get` answer: at least one, even when the task is already done.
  let polls = 0;
  let status: string | undefined;
  do {
    const got = await postJson(url, tasksGet(`get-${polls}`, task.taskId));
    status = (got.json as TaskAnswer | undefined)?.result?.status;
    if (got.status !== 200 || status === undefined)
      throw new Error(`tasks/get answered ${got.status} ${got.text.slice(0, 300)}`);
    if (status === 'failed' || status === 'cancelled') throw new Error(`task ${task.taskId} ${status}`);
    polls++;
  } while (status !== 'completed');
  return polls;
}

/** `workers` closed loops of `step` for `seconds`: completed steps per second, p50/p99 ms, and the steps' mean return value. */
async function closedLoop(
  seconds: number,
  workers: number,
  step: () => Promise<number>,
): Promise<{ rps: number; p50Ms: number; p99Ms: number; meanValue: number; failures: number }> {
  const latencies: number[] = [];
  let total = 0;
  let failures = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < deadline) {
        const begin = performance.now();
        try {
          const value = await step();
          total += value;
          latencies.push(performance.now() - begin);
        } catch (error) {
          if (++failures === 1) log(`  warning: ${(error as Error).message}`);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: latencies.length / elapsed,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    meanValue: latencies.length ? total / latencies.length : Number.NaN,
    failures,
  };
}

/**
 * The tasks extension on nest-mcp, at concurrency 16: (a) a plain `tools/call echo` (autocannon, and the same
 * closed-loop node:http client as (b), so that (b) is compared with the same client); (b) a task round trip:
 * `tools/call echo_task` declaring the extension answers a CreateTaskResult, then `tasks/get` is sent at once and
 * again until the task is completed (no poll delay); (c) `tasks/get` of one completed task (autocannon).
 */
export async function runTasks(ids: readonly ServerId[], options: BenchOptions): Promise<TasksResults> {
  const results: TasksResults = { concurrency: CONCURRENCY, rounds: {}, medians: {} };
  const servers = new Map<ServerId, ServerProcess>();
  const seconds = options.mrtrSeconds;
  try {
    // The echo servers plus `--tasks` (`echo_task`, room for many tasks); the other workloads' servers stay as they were.
    await Promise.all(
      ids.map(async (id) => {
        const launch = SERVERS[id].launch;
        servers.set(id, await ServerProcess.start(SERVERS[id].label, { ...launch, args: [...launch.args, '--tasks'] }));
      }),
    );
    const requests = new Map<ServerId, { plain: WireRequest; create: WireRequest; get: WireRequest }>();
    for (const id of ids) {
      const server = servers.get(id) as ServerProcess;
      const url = server.url(SERVERS[id].echoPath);
      await verifyEcho(SERVERS[id], server);
      const create = toolCall(1, 'echo_task', { text: 'hello' }, TASKS_META);
      const first = await postJson(url, create);
      const taskId = (first.json as TaskAnswer | undefined)?.result?.taskId;
      if (typeof taskId !== 'string')
        throw new Error(`${id}: echo_task answered ${first.status} ${first.text.slice(0, 300)}`);
      await roundTrip(url, create);
      let done: TaskAnswer['result'];
      for (let attempt = 0; attempt < 100 && done?.status !== 'completed'; attempt++)
        done = ((await postJson(url, tasksGet(2, taskId))).json as TaskAnswer).result;
      if (done?.status !== 'completed' || done.result?.content?.[0]?.text !== 'hello')
        throw new Error(`${id}: task ${taskId} did not complete with "hello"`);
      requests.set(id, { plain: toolCall(3, 'echo', { text: 'hello' }), create, get: tasksGet(4, taskId) });
    }
    const measure = async (id: ServerId, warm: boolean): Promise<TasksCell> => {
      const url = (servers.get(id) as ServerProcess).url(SERVERS[id].echoPath);
      const wire = requests.get(id)!;
      const time = warm ? options.warmupSeconds / 2 : seconds;
      const plain = await runLoad({ url, request: wire.plain, connections: CONCURRENCY, seconds: time });
      const plainLoop = await closedLoop(time, CONCURRENCY, async () => {
        const answer = await postJson(url, wire.plain);
        if (answer.status !== 200) throw new Error(`echo answered ${answer.status}`);
        return 0;
      });
      const trip = await closedLoop(time, CONCURRENCY, () => roundTrip(url, wire.create));
      const get = await runLoad({ url, request: wire.get, connections: CONCURRENCY, seconds: time });
      const failures = plain.failures + plainLoop.failures + trip.failures + get.failures;
      if (failures > 0) log(`  warning: ${id}: ${failures} failed requests or round trips`);
      return {
        plain: { rps: plain.rps, p50Ms: plain.p50Ms, p99Ms: plain.p99Ms },
        plainLoop: { rps: plainLoop.rps, p50Ms: plainLoop.p50Ms, p99Ms: plainLoop.p99Ms },
        roundTrip: { rps: trip.rps, p50Ms: trip.p50Ms, p99Ms: trip.p99Ms, polls: trip.meanValue },
        get: { rps: get.rps, p50Ms: get.p50Ms, p99Ms: get.p99Ms },
      };
    };
    for (const id of ids) await measure(id, true);
    for (let round = 0; round < options.rounds; round++) {
      for (const id of rotate(ids, round)) {
        const cell = await measure(id, false);
        (results.rounds[id] ??= []).push(cell);
        log(
          `tasks round ${round + 1}/${options.rounds} ${id}: plain ${Math.round(cell.plain.rps)} req/s, round trip ${Math.round(cell.roundTrip.rps)}/s ` +
            `(${cell.roundTrip.polls.toFixed(2)} polls), tasks/get ${Math.round(cell.get.rps)} req/s`,
        );
      }
    }
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
  for (const id of ids) {
    const cells = results.rounds[id] ?? [];
    const pick = (kind: 'plain' | 'plainLoop' | 'get') => ({
      rps: median(cells.map((cell) => cell[kind].rps)),
      p50Ms: median(cells.map((cell) => cell[kind].p50Ms)),
      p99Ms: median(cells.map((cell) => cell[kind].p99Ms)),
    });
    results.medians[id] = {
      plain: pick('plain'),
      plainLoop: pick('plainLoop'),
      roundTrip: {
        rps: median(cells.map((cell) => cell.roundTrip.rps)),
        p50Ms: median(cells.map((cell) => cell.roundTrip.p50Ms)),
        p99Ms: median(cells.map((cell) => cell.roundTrip.p99Ms)),
        polls: median(cells.map((cell) => cell.roundTrip.polls)),
      },
      get: pick('get'),
    };
  }
  return results;
}
