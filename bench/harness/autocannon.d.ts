/** The part of autocannon 9's programmatic API the harness uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface AutocannonOptions {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    pipelining?: number;
    /** Seconds; ends at the first sample tick after it elapsed. */
    duration?: number;
    /** Total requests instead of a duration. */
    amount?: number;
    /** Milliseconds between samples. */
    sampleInt?: number;
    /** Seconds before a request times out. */
    timeout?: number;
  }

  /** The aggregated result (autocannon/lib/aggregateResult.js). */
  interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    latency: { p50: number; p99: number; average: number };
    requests: { total: number; sent: number };
  }

  interface Instance extends EventEmitter, PromiseLike<AutocannonResult> {
    stop(): void;
  }

  function autocannon(options: AutocannonOptions): Instance;
  export default autocannon;
}
