import { performance } from 'node:perf_hooks';

/**
 * Milliseconds since the epoch with sub-millisecond resolution: the clock every timestamp of the scale-out workloads
 * is taken with, in servers and in listener processes alike. Each process's clock is related to the harness's by
 * `measureClockOffset` (harness/clock-offset.ts), so that a time taken in one process can be compared with another's.
 */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}
