import type { CountingProgress, DoubleProgress, LongProgress, PercentProgress } from './progress.emitters.js';

/**
 * Creates typed progress emitters bound to the current request's progress token. Values are checked whether or not
 * the client asked for progress; only sending depends on the token. All emitters of one request (and
 * `ctx.progressFrom`) share one order: a value not above the last one any of them reported throws
 * `IllegalProgressError`, as the spec requires the progress of one token to increase with each notification. A
 * `null` total means "unknown", as in the progress-emitter design: the notifications carry no `total`.
 */
export interface McpProgressSource {
  /** Any finite, strictly increasing values; optional total (`null` or left out: unknown). */
  doubleProgress(total?: number | null): DoubleProgress;
  /** Whole, strictly increasing values; optional total (`null` or left out: unknown). */
  longProgress(total?: number | null): LongProgress;
  /** Each `emit()` adds one; optional total, the number of steps (`null` or left out: unknown). */
  countingProgress(total?: number | null): CountingProgress;
  /** Fractions 0.0–1.0, strictly increasing; sent with total 1.0. */
  percentProgress(): PercentProgress;
}
