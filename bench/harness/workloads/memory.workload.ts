import { verifyEcho } from '../fleet.js';
import { runLoad } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log, rotate, sleep } from '../progress-log.js';
import type { MemoryCell, MemoryResults } from '../result.interface.js';
import { ServerProcess } from '../server-process.js';
import { SERVERS, type ServerId } from '../servers.js';
import { median } from '../stats.js';
import { toolCall } from '../wire.js';

const MB = 1024 * 1024;
const WARM_UP_CALLS = 1_000;

/**
 * RSS of a fresh server before and after `memoryCalls` echo calls (concurrency 16), after `idleSeconds` alone,
 * and after forced GC. "Before" is taken after start-up and a 1,000-call warm-up, so that lazy initialisation and
 * JIT code are not counted as growth.
 */
export async function runMemory(ids: readonly ServerId[], options: BenchOptions): Promise<MemoryResults> {
  const results: MemoryResults = {
    calls: options.memoryCalls,
    idleSeconds: options.idleSeconds,
    rounds: {},
    medians: {},
  };
  const request = toolCall(1, 'echo', { text: 'hello' });
  const rounds = options.mode === 'quick' ? 1 : Math.max(3, Math.min(options.rounds, 3));
  for (let round = 0; round < rounds; round++) {
    for (const id of rotate(ids, round)) {
      const spec = SERVERS[id];
      const server = await ServerProcess.start(spec.label, spec.launch);
      try {
        await verifyEcho(spec, server);
        const url = server.url(spec.echoPath);
        await runLoad({ url, request, connections: 16, amount: WARM_UP_CALLS });
        const before = await server.memory();
        const load = await runLoad({ url, request, connections: 16, amount: options.memoryCalls });
        const after = await server.memory();
        await sleep(options.idleSeconds * 1000);
        const idle = await server.memory();
        const collected = await server.memory(true);
        const cell: MemoryCell = {
          calls: load.requests,
          rssBeforeMb: before.rss / MB,
          rssAfterMb: after.rss / MB,
          rssAfterIdleMb: idle.rss / MB,
          rssAfterGcMb: collected.rss / MB,
          heapBeforeMb: before.heapUsed / MB,
          heapAfterMb: after.heapUsed / MB,
          heapAfterGcMb: collected.heapUsed / MB,
          growthMb: (after.rss - before.rss) / MB,
          idleGrowthMb: (idle.rss - before.rss) / MB,
        };
        (results.rounds[id] ??= []).push(cell);
        log(
          `memory round ${round + 1}/${rounds} ${id}: RSS ${cell.rssBeforeMb.toFixed(1)} → ${cell.rssAfterMb.toFixed(1)} MB after ${load.requests} calls, ` +
            `${cell.rssAfterIdleMb.toFixed(1)} after ${options.idleSeconds} s idle, ${cell.rssAfterGcMb.toFixed(1)} after GC` +
            (load.failures ? ` (${load.failures} failures)` : ''),
        );
      } finally {
        await server.stop();
      }
    }
  }
  for (const id of ids) {
    const cells = results.rounds[id] ?? [];
    const pick = (field: keyof MemoryCell) => median(cells.map((cell) => cell[field]));
    results.medians[id] = {
      calls: pick('calls'),
      rssBeforeMb: pick('rssBeforeMb'),
      rssAfterMb: pick('rssAfterMb'),
      rssAfterIdleMb: pick('rssAfterIdleMb'),
      rssAfterGcMb: pick('rssAfterGcMb'),
      heapBeforeMb: pick('heapBeforeMb'),
      heapAfterMb: pick('heapAfterMb'),
      heapAfterGcMb: pick('heapAfterGcMb'),
      growthMb: pick('growthMb'),
      idleGrowthMb: pick('idleGrowthMb'),
    };
  }
  return results;
}
