import { createProgressEvent, formatProgressEvent } from '../progress/progress-event.codec.js';
import type { ProgressReporter } from './progress-reporter.interface.js';
import { escapeUnsafeJson } from './terminal-text.sanitizer.js';

/**
 * Machine-readable progress: one `ProgressEvent` line per value on `stream` (stderr), carrying the trace ids of the
 * `traceparent` the CLI sent with the request, so the lines can be joined to the server's own. The server's message
 * keeps its exact value, but no control character of it is written raw (stderr is often a terminal).
 */
export class NdjsonProgressReporter implements ProgressReporter {
  constructor(
    private readonly stream: { write(chunk: string): unknown },
    private readonly traceparent?: string,
  ) {}

  report(progress: number, total: number | undefined, message: string | undefined): void {
    this.stream.write(escapeUnsafeJson(formatProgressEvent(createProgressEvent({ progress, total, message }, { traceparent: this.traceparent }))));
  }

  suspend(): void {}

  finish(): void {}
}
