import { runLoad } from './load.js';
import { log } from './progress-log.js';
import type { EchoCell } from './result.interface.js';
import type { ServerProcess } from './server-process.js';
import { median } from './stats.js';
import type { WireRequest } from './wire.js';

/** The medians of a cell over rounds (failures added up). */
export function medianCell(cells: EchoCell[]): EchoCell {
  return {
    rps: median(cells.map((cell) => cell.rps)),
    p50Ms: median(cells.map((cell) => cell.p50Ms)),
    p99Ms: median(cells.map((cell) => cell.p99Ms)),
    cpuUsPerCall: median(cells.map((cell) => cell.cpuUsPerCall)),
    requests: median(cells.map((cell) => cell.requests)),
    failures: cells.reduce((sum, cell) => sum + cell.failures, 0),
  };
}

/** One measured cell: `seconds` of closed-loop load of `request` on `path`, and the server's CPU over it. */
export async function measure(
  server: ServerProcess,
  request: WireRequest,
  connections: number,
  seconds: number,
  path = '/mcp',
): Promise<EchoCell> {
  const before = await server.cpuUsage();
  const load = await runLoad({ url: server.url(path), request, connections, seconds });
  const after = await server.cpuUsage();
  const cpuUs = after.user - before.user + (after.system - before.system);
  if (load.failures > 0) log(`  warning: ${server.label} c=${connections}: ${load.failures} failed requests`);
  return {
    rps: load.rps,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    cpuUsPerCall: load.requests > 0 ? cpuUs / load.requests : Number.NaN,
    requests: load.requests,
    failures: load.failures,
  };
}
