import type { BenchOptions } from './options.js';
import type { PairedAdapterResults, PairedResults } from './paired-result.interface.js';
import { measure, medianCell } from './echo-cell.js';
import { runLoad } from './load.js';
import { log } from './progress-log.js';
import { ServerProcess } from './server-process.js';
import { pairedRatio } from './stats.js';
import type { WireRequest } from './wire.js';

const ADAPTERS = ['express', 'fastify'] as const;

/** What a paired workload compares: one server script, started with the subject's and the baseline's arguments. */
export interface PairedWorkload {
  /** Its name in logs (`cache`, `throttler`). */
  name: string;
  script: string;
  subject: { label: string; args: string[] };
  baseline: { label: string; args: string[] };
  tool: string;
  request: WireRequest;
  /** Checks a started server answers `request` as expected before it is measured. */
  verify(server: ServerProcess, request: WireRequest): Promise<void>;
}

/**
 * On each adapter, the same server with and without one module receives the same calls in interleaved rounds
 * (subject, baseline, baseline, subject, …); the ratio of their throughputs and the difference of their CPU per call
 * are what the module costs (or saves).
 */
export async function runPaired(workload: PairedWorkload, options: BenchOptions): Promise<PairedResults> {
  const results: PairedResults = {
    subject: workload.subject.label,
    baseline: workload.baseline.label,
    tool: workload.tool,
    concurrencies: options.concurrencies,
    adapters: {},
  };
  for (const adapter of ADAPTERS) {
    const subject = await ServerProcess.start(`nest-mcp-${adapter} ${workload.subject.label}`, {
      script: workload.script,
      args: ['--adapter', adapter, ...workload.subject.args],
    });
    const baseline = await ServerProcess.start(`nest-mcp-${adapter} ${workload.baseline.label}`, {
      script: workload.script,
      args: ['--adapter', adapter, ...workload.baseline.args],
    });
    try {
      for (const server of [subject, baseline]) await workload.verify(server, workload.request);
      const adapterResults = await measurePair(
        `${workload.name} (${adapter})`,
        { subject, baseline },
        { subject: workload.subject.label, baseline: workload.baseline.label },
        workload.request,
        options,
      );
      results.adapters[adapter] = adapterResults;
    } finally {
      await Promise.all([subject.stop(), baseline.stop()]);
    }
  }
  return results;
}

/**
 * Warm-up, then interleaved rounds (subject, baseline, baseline, subject, …) of `request` at each concurrency on two
 * started servers; medians and the subject's cost against the baseline. `name` and `labels` are for the log.
 */
export async function measurePair(
  name: string,
  servers: { subject: ServerProcess; baseline: ServerProcess },
  labels: { subject: string; baseline: string },
  request: WireRequest,
  options: BenchOptions,
): Promise<PairedAdapterResults> {
  log(`${name}: warm-up ${options.warmupSeconds} s per server`);
  for (const server of [servers.subject, servers.baseline]) {
    await runLoad({ url: server.url('/mcp'), request, connections: 16, seconds: options.warmupSeconds });
  }
  const results: PairedAdapterResults = {
    rounds: { subject: {}, baseline: {} },
    medians: { subject: {}, baseline: {} },
    cost: {},
  };
  for (let round = 0; round < options.rounds; round++) {
    for (const concurrency of options.concurrencies) {
      // Alternate which server goes first, so that neither always meets a warmer or cooler machine.
      const order = round % 2 === 0 ? (['subject', 'baseline'] as const) : (['baseline', 'subject'] as const);
      const line: string[] = [];
      for (const which of order) {
        const cell = await measure(servers[which], request, concurrency, options.echoSeconds);
        (results.rounds[which][String(concurrency)] ??= []).push(cell);
        line.push(`${labels[which]} ${Math.round(cell.rps)}`);
      }
      log(`${name} round ${round + 1}/${options.rounds} c=${concurrency}: ${line.join(', ')} req/s`);
    }
  }
  for (const concurrency of options.concurrencies.map(String)) {
    const subjectCells = results.rounds.subject[concurrency] ?? [];
    const baselineCells = results.rounds.baseline[concurrency] ?? [];
    const [subjectMedian, baselineMedian] = [medianCell(subjectCells), medianCell(baselineCells)];
    results.medians.subject[concurrency] = subjectMedian;
    results.medians.baseline[concurrency] = baselineMedian;
    results.cost[concurrency] = {
      rpsRatio: pairedRatio(
        subjectCells.map((cell) => cell.rps),
        baselineCells.map((cell) => cell.rps),
      ),
      p50Ratio: pairedRatio(
        subjectCells.map((cell) => cell.p50Ms),
        baselineCells.map((cell) => cell.p50Ms),
      ),
      extraCpuUsPerCall: subjectMedian.cpuUsPerCall - baselineMedian.cpuUsPerCall,
    };
  }
  return results;
}

/** A paired workload's results as a Markdown table (printed after the run; docs/performance.md). */
export function renderPaired(title: string, results: PairedResults): string {
  const lines = [
    `${title}: \`${results.tool}\` with ${results.subject} against ${results.baseline}`,
    '',
    `| adapter | concurrency | req/s with | req/s without | ratio | p50 with / without (ms) | CPU per call with − without |`,
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [adapter, adapterResults] of Object.entries(results.adapters)) {
    for (const concurrency of results.concurrencies.map(String)) {
      const subject = adapterResults.medians.subject[concurrency];
      const baseline = adapterResults.medians.baseline[concurrency];
      const cost = adapterResults.cost[concurrency];
      if (!subject || !baseline || !cost) continue;
      lines.push(
        `| ${adapter} | ${concurrency} | ${Math.round(subject.rps)} | ${Math.round(baseline.rps)} | ${cost.rpsRatio.toFixed(2)} | ` +
          `${subject.p50Ms.toFixed(2)} / ${baseline.p50Ms.toFixed(2)} | ${cost.extraCpuUsPerCall.toFixed(0)} µs |`,
      );
    }
  }
  return lines.join('\n');
}
