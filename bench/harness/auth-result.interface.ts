import type { EchoCell } from './result.interface.js';

/** One adapter of the `auth` workload: the same server and requests, with and without authorization. */
export interface AuthAdapterResults {
  /** concurrency → one cell per round, in round order. */
  rounds: { withAuth: Record<string, EchoCell[]>; withoutAuth: Record<string, EchoCell[]> };
  /** concurrency → medians over the rounds. */
  medians: { withAuth: Record<string, EchoCell>; withoutAuth: Record<string, EchoCell> };
  /**
   * concurrency → the cost of authorization per call: throughput with / without (median of the per-round ratios),
   * and the extra server CPU per call (µs, medians' difference).
   */
  cost: Record<string, { rpsRatio: number; p50Ratio: number; extraCpuUsPerCall: number }>;
  /**
   * With `--baseline DIR`: this build with auth against the baseline's build with auth, interleaved (the same
   * token, the same calls): what a change did to the authorized path. Costs as above, this build over the baseline.
   */
  againstBaseline?: {
    commit: string;
    cost: Record<string, { rpsRatio: number; p50Ratio: number; extraCpuUsPerCall: number }>;
  };
}

/** The `auth` workload (issue #17): the cost of JWT validation per call. */
export interface AuthResults {
  /** Signature algorithm of the tokens. */
  algorithm: string;
  concurrencies: number[];
  adapters: Partial<Record<'express' | 'fastify', AuthAdapterResults>>;
  /** `JwtTokenVerifier.verify` of one token in a loop, in the server process: µs per call. */
  verifyUs?: number;
  /** Length of the bench token, in characters. */
  tokenChars: number;
}
