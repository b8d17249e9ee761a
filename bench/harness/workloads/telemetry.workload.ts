import { measure, medianCell } from '../echo-cell.js';
import { runLoad } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log } from '../progress-log.js';
import type { EchoCell } from '../result.interface.js';
import { ServerProcess } from '../server-process.js';
import { pairedRatio } from '../stats.js';
import { toolCall, type WireRequest } from '../wire.js';

const SCRIPT = 'nest-mcp-telemetry.server.js';
const ADAPTERS = ['express', 'fastify'] as const;

/** The three setups the workload compares, each a server process of its own. */
export const TELEMETRY_MODES = ['sdk', 'api', 'off'] as const;
export type TelemetryMode = (typeof TELEMETRY_MODES)[number];

const LABELS: Record<TelemetryMode, string> = {
  sdk: 'SDK registered (every span and metric recorded)',
  api: '@opentelemetry/api, no SDK',
  off: 'telemetry: false',
};

/** One adapter of the telemetry workload. */
export interface TelemetryAdapterResults {
  /** mode → concurrency → one cell per round. */
  rounds: Record<TelemetryMode, Record<string, EchoCell[]>>;
  medians: Record<TelemetryMode, Record<string, EchoCell>>;
  /** `sdk` and `api` against `off`: throughput ratio (median of the per-round ratios) and the CPU per call they add. */
  cost: Record<'sdk' | 'api', Record<string, { rpsRatio: number; p50Ratio: number; extraCpuUsPerCall: number }>>;
}

/** The `telemetry` workload (issue #27): what OpenTelemetry costs per `tools/call`, with and without an SDK. */
export interface TelemetryResults {
  tool: string;
  concurrencies: number[];
  adapters: Partial<Record<(typeof ADAPTERS)[number], TelemetryAdapterResults>>;
}

async function answers(server: ServerProcess, request: WireRequest): Promise<void> {
  const answer = await fetch(server.url('/mcp'), { method: 'POST', headers: request.headers, body: request.body });
  const text = await answer.text();
  if (answer.status !== 200 || !text.includes('"hello"'))
    throw new Error(`${server.label}: answered ${answer.status}: ${text.slice(0, 300)}`);
}

/**
 * On each adapter, three servers — an SDK registered, the API without an SDK, `telemetry: false` — get the same
 * `echo` calls (each with a `traceparent` in `_meta`, as an instrumented client sends) in interleaved rounds whose
 * order rotates; the `api` ratio is the "free when off" claim, the `sdk` ratio what recording costs.
 */
export async function runTelemetry(options: BenchOptions): Promise<TelemetryResults> {
  const request = toolCall(
    1,
    'echo',
    { text: 'hello' },
    { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
  );
  const results: TelemetryResults = { tool: 'echo', concurrencies: options.concurrencies, adapters: {} };
  for (const adapter of ADAPTERS) {
    const servers = {} as Record<TelemetryMode, ServerProcess>;
    try {
      for (const mode of TELEMETRY_MODES) {
        servers[mode] = await ServerProcess.start(`nest-mcp-${adapter} telemetry ${mode}`, {
          script: SCRIPT,
          args: ['--adapter', adapter, '--mode', mode],
        });
        await answers(servers[mode], request);
      }
      results.adapters[adapter] = await measureModes(`telemetry (${adapter})`, servers, request, options);
    } finally {
      await Promise.all(Object.values(servers).map((server) => server.stop()));
    }
  }
  return results;
}

async function measureModes(
  name: string,
  servers: Record<TelemetryMode, ServerProcess>,
  request: WireRequest,
  options: BenchOptions,
): Promise<TelemetryAdapterResults> {
  log(`${name}: warm-up ${options.warmupSeconds} s per server`);
  for (const mode of TELEMETRY_MODES)
    await runLoad({ url: servers[mode].url('/mcp'), request, connections: 16, seconds: options.warmupSeconds });
  const rounds = { sdk: {}, api: {}, off: {} } as TelemetryAdapterResults['rounds'];
  for (let round = 0; round < options.rounds; round++) {
    for (const concurrency of options.concurrencies) {
      // Each round starts one server later, so that none always meets a warmer or cooler machine.
      const order = TELEMETRY_MODES.map((_, index) => TELEMETRY_MODES[(index + round) % TELEMETRY_MODES.length]);
      const line: string[] = [];
      for (const mode of order) {
        const cell = await measure(servers[mode], request, concurrency, options.echoSeconds);
        (rounds[mode][String(concurrency)] ??= []).push(cell);
        line.push(`${mode} ${Math.round(cell.rps)}`);
      }
      log(`${name} round ${round + 1}/${options.rounds} c=${concurrency}: ${line.join(', ')} req/s`);
    }
  }
  const medians = { sdk: {}, api: {}, off: {} } as TelemetryAdapterResults['medians'];
  const cost = { sdk: {}, api: {} } as TelemetryAdapterResults['cost'];
  for (const concurrency of options.concurrencies.map(String)) {
    for (const mode of TELEMETRY_MODES) medians[mode][concurrency] = medianCell(rounds[mode][concurrency] ?? []);
    for (const mode of ['sdk', 'api'] as const) {
      const subject = rounds[mode][concurrency] ?? [];
      const baseline = rounds.off[concurrency] ?? [];
      cost[mode][concurrency] = {
        rpsRatio: pairedRatio(
          subject.map((cell) => cell.rps),
          baseline.map((cell) => cell.rps),
        ),
        p50Ratio: pairedRatio(
          subject.map((cell) => cell.p50Ms),
          baseline.map((cell) => cell.p50Ms),
        ),
        extraCpuUsPerCall: medians[mode][concurrency].cpuUsPerCall - medians.off[concurrency].cpuUsPerCall,
      };
    }
  }
  return { rounds, medians, cost };
}

/** The `telemetry` results as a Markdown section (run report and docs/performance.md). */
export function renderTelemetry(results: TelemetryResults | undefined): string {
  if (!results) return '';
  const lines = [
    '### Telemetry (issue #27)',
    '',
    `\`${results.tool}\` calls carrying a \`traceparent\`, to the same nest-mcp with ${LABELS.sdk}, with ${LABELS.api}, and with ${LABELS.off}; ` +
      'ratios against `telemetry: false`, measured in the same interleaved rounds.',
    '',
    '| adapter | concurrency | req/s SDK · API only · off | SDK / off | API only / off | p50 ms SDK · API · off | CPU per call vs off: SDK · API only |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [adapter, adapterResults] of Object.entries(results.adapters)) {
    for (const concurrency of results.concurrencies.map(String)) {
      const m = adapterResults.medians;
      const c = adapterResults.cost;
      if (!m.off[concurrency] || !c.sdk[concurrency]) continue;
      lines.push(
        `| ${adapter} | ${concurrency} | ${TELEMETRY_MODES.map((mode) => Math.round(m[mode][concurrency].rps)).join(' · ')} | ` +
          `${c.sdk[concurrency].rpsRatio.toFixed(2)} | ${c.api[concurrency].rpsRatio.toFixed(2)} | ` +
          `${TELEMETRY_MODES.map((mode) => m[mode][concurrency].p50Ms.toFixed(2)).join(' · ')} | ` +
          `${c.sdk[concurrency].extraCpuUsPerCall.toFixed(0)} µs · ${c.api[concurrency].extraCpuUsPerCall.toFixed(0)} µs |`,
      );
    }
  }
  return lines.join('\n');
}
