import type { EchoCell } from './result.interface.js';

/** One adapter of a paired workload: the same requests to a server with a module and to the same server without it. */
export interface PairedAdapterResults {
  /** concurrency → one cell per round, in round order. */
  rounds: { subject: Record<string, EchoCell[]>; baseline: Record<string, EchoCell[]> };
  /** concurrency → medians over the rounds. */
  medians: { subject: Record<string, EchoCell>; baseline: Record<string, EchoCell> };
  /** concurrency → throughput subject / baseline (median of the per-round ratios), and the server CPU per call it adds. */
  cost: Record<string, { rpsRatio: number; p50Ratio: number; extraCpuUsPerCall: number }>;
}

/** A paired workload (`cache`, `throttler`; issue #30): what one Nest module costs or saves per MCP call. */
export interface PairedResults {
  /** What the subject server has that the baseline lacks, e.g. `McpCacheInterceptor (memory)`. */
  subject: string;
  /** The baseline, e.g. `no cache`. */
  baseline: string;
  /** The tool called. */
  tool: string;
  concurrencies: number[];
  adapters: Partial<Record<'express' | 'fastify', PairedAdapterResults>>;
}
