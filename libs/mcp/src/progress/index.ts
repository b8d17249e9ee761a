/*
 * nest-mcp/progress: the progress contract on its own, cheap to import (no Nest, no Ajv, nothing of the server): the
 * NDJSON `ProgressEvent` (its codec and writer), for a command a tool wraps (`ctx.progressFrom`) or a tool reading a
 * server's stderr, and the typed emitters handlers get from their context. `nest-mcp` re-exports the emitters and
 * `nest-mcp/backend` the codec and writer (ADR 0026), so nothing here is new to either. Nothing here may import
 * beyond progress/ but two pure helpers of protocol/ (.dependency-cruiser.mjs, rule
 * `progress-entry-stays-small`; test/server/progress-entry.e2e-spec.ts counts what an import loads).
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
export {
  createProgressEvent,
  formatProgressEvent,
  parseProgressLine,
  type ProgressReport,
  type ProgressLine,
} from './progress-event.codec.js';
export { ProgressEventWriter } from './progress-event.writer.js';
