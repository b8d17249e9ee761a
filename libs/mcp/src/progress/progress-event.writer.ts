import { formatProgressEvent } from './progress-event.codec.js';
import type { ProgressEvent } from './progress-event.interface.js';

/** Anything with a `write` that takes a string: `process.stderr`, a file stream, a PassThrough in a test. */
export interface TextSink {
  write(chunk: string): unknown;
}

/**
 * Writes `ProgressEvent`s as NDJSON, by default to stderr. Each event is one `write` call of one whole line, so
 * lines never interleave with each other or with log lines written the same way.
 */
export class ProgressEventWriter {
  constructor(private readonly sink: TextSink = process.stderr) {}

  write(event: ProgressEvent): void {
    this.sink.write(formatProgressEvent(event));
  }
}
