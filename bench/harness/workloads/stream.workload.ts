import type { Fleet } from '../fleet.js';
import { streamCall } from '../http-client.js';
import type { BenchOptions } from '../options.js';
import { log, rotate } from '../progress-log.js';
import type { StreamCell, StreamResults } from '../result.interface.js';
import { SERVERS, type ServerId } from '../servers.js';
import { median } from '../stats.js';
import { toolCall } from '../wire.js';

/**
 * One `count` call streaming n progress notifications to one client, per server in turn. The rate is the frames
 * the client actually received per second of the call; a server that coalesces frames for a slow reader (nest-mcp's
 * bounded queue) is credited only with what arrived.
 */
export async function runStream(fleet: Fleet, ids: readonly ServerId[], options: BenchOptions): Promise<StreamResults> {
  const results: StreamResults = { counts: options.streamCounts, rounds: {}, medians: {} };
  let nextId = 1;
  const call = async (id: ServerId, n: number): Promise<StreamCell> => {
    const answer = await streamCall(
      fleet.get(id).url(SERVERS[id].streamPath),
      toolCall(nextId++, 'count', { n }, { progressToken: 'bench' }),
    );
    const text = (answer.final as { result?: { content?: { text?: string }[] } } | undefined)?.result?.content?.[0]
      ?.text;
    if (answer.status !== 200 || text !== `counted ${n}`)
      throw new Error(`${id}: count(${n}) did not complete (status ${answer.status})`);
    if (answer.lastProgress !== n) log(`  note: ${id} count(${n}): last progress received was ${answer.lastProgress}`);
    return {
      notificationsPerSec: answer.notifications / (answer.ms / 1000),
      received: answer.notifications,
      ms: answer.ms,
      firstFrameMs: answer.firstFrameMs,
    };
  };

  // Enough streaming for every server's JIT to have optimized its per-frame path before the first measured round
  // (two short calls left the first rounds up to 4x slower than the last ones).
  log('stream: warm-up');
  for (const id of ids) {
    for (let warmup = 0; warmup < 5; warmup++) await call(id, 1_000);
    for (let warmup = 0; warmup < 3; warmup++) await call(id, 10_000);
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const n of options.streamCounts) {
      const line: string[] = [];
      for (const id of rotate(ids, round)) {
        const cell = await call(id, n);
        const byServer = (results.rounds[id] ??= {});
        (byServer[String(n)] ??= []).push(cell);
        line.push(
          `${id} ${Math.round(cell.notificationsPerSec)}${cell.received < n ? ` (${cell.received} recv)` : ''}`,
        );
      }
      log(`stream round ${round + 1}/${options.rounds} n=${n}: ${line.join(', ')} notifications/s`);
    }
  }
  for (const id of ids) {
    const medians: Record<string, StreamCell> = {};
    for (const [n, cells] of Object.entries(results.rounds[id] ?? {})) {
      medians[n] = {
        notificationsPerSec: median(cells.map((cell) => cell.notificationsPerSec)),
        received: median(cells.map((cell) => cell.received)),
        ms: median(cells.map((cell) => cell.ms)),
        firstFrameMs: median(cells.map((cell) => cell.firstFrameMs)),
      };
    }
    results.medians[id] = medians;
  }
  return results;
}
