/*
 * What other folders may use of progress/: the typed emitters handlers get from their context, and the NDJSON
 * `ProgressEvent` contract (its codec and writer).
 */
export { DoubleProgress, LongProgress, CountingProgress, PercentProgress } from './progress.emitters.js';
export { IllegalProgressError } from './illegal-progress.error.js';
export type {
  DoubleProgressEmitter,
  LongProgressEmitter,
  CountingProgressEmitter,
  PercentageCompleteProgressEmitter,
  PercentProgressEmitter,
} from './progress-emitter.aliases.js';
export type { McpProgressSource } from './mcp-progress-source.interface.js';
export type { ProgressEvent } from './progress-event.interface.js';
export { createProgressEvent, formatProgressEvent, parseProgressLine, type ProgressReport, type ProgressLine } from './progress-event.codec.js';
export { ProgressEventWriter } from './progress-event.writer.js';
