import autocannon from 'autocannon';
import type { WireRequest } from './wire.js';

/**
 * Closed-loop HTTP load with autocannon: `connections` keep-alive connections, one request in flight each.
 * Latencies are taken from autocannon's per-response event (hrtime, fractional ms), because its own histogram has
 * 1 ms resolution, too coarse for loopback calls.
 */

export interface LoadOptions {
  url: string;
  request: WireRequest;
  connections: number;
  /** Seconds (rounded up to `sampleIntMs`); or give `amount`. */
  seconds?: number;
  amount?: number;
  sampleIntMs?: number;
}

export interface LoadResult {
  /** Calls answered with a 2xx status. */
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Errors, timeouts and non-2xx answers together. */
  failures: number;
}

export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index];
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: options.url,
    method: 'POST',
    headers: options.request.headers,
    body: options.request.body,
    connections: options.connections,
    pipelining: 1,
    timeout: 10,
    sampleInt: options.sampleIntMs ?? 250,
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds ?? 1 }),
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  const sorted = Float64Array.from(latencies).sort();
  const seconds = result.duration > 0 ? result.duration : 1;
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    failures: result.errors + result.timeouts + result.non2xx,
  };
}
