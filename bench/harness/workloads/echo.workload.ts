import type { Fleet } from '../fleet.js';
import { runLoad } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log, rotate } from '../progress-log.js';
import type { EchoCell, EchoResults } from '../result.interface.js';
import { SERVERS, type ServerId } from '../servers.js';
import { measure, medianCell } from '../echo-cell.js';
import { toolCall } from '../wire.js';

/** `tools/call` of `echo` at each concurrency, every server in turn within a round (A B C A B C …). */
export async function runEcho(fleet: Fleet, ids: readonly ServerId[], options: BenchOptions): Promise<EchoResults> {
  const request = toolCall(1, 'echo', { text: 'hello' });
  const results: EchoResults = { concurrencies: options.concurrencies, rounds: {}, medians: {} };

  log(`echo: warm-up ${options.warmupSeconds} s per server`);
  for (const id of ids) {
    await runLoad({
      url: fleet.get(id).url(SERVERS[id].echoPath),
      request,
      connections: 16,
      seconds: options.warmupSeconds,
    });
  }

  for (let round = 0; round < options.rounds; round++) {
    for (const concurrency of options.concurrencies) {
      const line: string[] = [];
      for (const id of rotate(ids, round)) {
        const server = fleet.get(id);
        const cell = await measure(server, request, concurrency, options.echoSeconds, SERVERS[id].echoPath);
        const byServer = (results.rounds[id] ??= {});
        (byServer[String(concurrency)] ??= []).push(cell);
        line.push(`${id} ${Math.round(cell.rps)}`);
      }
      log(`echo round ${round + 1}/${options.rounds} c=${concurrency}: ${line.join(', ')} req/s`);
    }
  }

  for (const id of ids) {
    const medians: Record<string, EchoCell> = {};
    for (const [concurrency, cells] of Object.entries(results.rounds[id] ?? {})) {
      medians[concurrency] = medianCell(cells);
    }
    results.medians[id] = medians;
  }
  return results;
}
