import { createProgressEvent, formatProgressEvent } from '../progress/progress-event.codec.js';
import type { ProgressReporter } from './progress-reporter.interface.js';

/**
 * Machine-readable progress: one `ProgressEvent` line per value on `stream` (stderr), carrying the trace ids of the
 * `traceparent` the CLI sent with the request, so the lines can be joined to the server's own.
 */
export class NdjsonProgressReporter implements ProgressReporter {
  constructor(
    private readonly stream: { write(chunk: string): unknown },
    private readonly traceparent?: string,
  ) {}

  report(progress: number, total: number | undefined, message: string | undefined): void {
    this.stream.write(formatProgressEvent(createProgressEvent({ progress, total, message }, { traceparent: this.traceparent })));
  }

  suspend(): void {}

  finish(): void {}
}
