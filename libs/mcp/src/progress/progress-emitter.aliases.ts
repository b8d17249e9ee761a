import type { CountingProgress, DoubleProgress, LongProgress, PercentProgress } from './progress.emitters.js';

/*
 * The emitter types under the names of the progress-emitter design nest-mcp's contexts follow (ADR 0021). They are
 * the same types, not wrappers: use whichever name reads better; the library's own docs use the short ones.
 */

/** `DoubleProgress` (`ctx.doubleProgress(total?)`), under the design's name. */
export type DoubleProgressEmitter = DoubleProgress;

/** `LongProgress` (`ctx.longProgress(total?)`), under the design's name. */
export type LongProgressEmitter = LongProgress;

/** `CountingProgress` (`ctx.countingProgress(total?)`), under the design's name. */
export type CountingProgressEmitter = CountingProgress;

/** `PercentProgress` (`ctx.percentProgress()`), under the design's name; `complete(fraction)` is its `emit`. */
export type PercentageCompleteProgressEmitter = PercentProgress;

/** `PercentProgress`, named like the other three aliases (the emitter's own name plus `Emitter`). */
export type PercentProgressEmitter = PercentProgress;
