import { createInterface } from 'node:readline';
import { parseProgressLine } from './progress-event.codec.js';
import type { ProgressEvent } from './progress-event.interface.js';

/** What to do with each line of a stream that mixes `ProgressEvent`s with other output. */
export interface ProgressLineHandlers {
  /**
   * A well-formed progress event, with the line it was read from (without its line break). May throw (e.g.
   * `IllegalProgressError`); the error goes to `onRejected`.
   */
  onEvent(event: ProgressEvent, line: string): void;
  /** A progress event that was malformed, or that `onEvent` refused. */
  onRejected(line: string, reason: string): void;
  /** Any other non-empty line. */
  onOther(line: string): void;
}

/**
 * Reads `readable` line by line (UTF-8, `\n` or `\r\n`) and sorts every line into `handlers`. Resolves when the
 * stream ends or `signal` aborts; rejects only when the stream itself fails. Never throws from a handler's error:
 * one bad line must not end a long-running command's progress.
 */
export function readProgressLines(
  readable: NodeJS.ReadableStream,
  handlers: ProgressLineHandlers,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const lines = createInterface({ input: readable, crlfDelay: Infinity });
    const stop = () => lines.close();
    signal?.addEventListener('abort', stop, { once: true });
    // readline re-emits the input's errors on the interface (and throws if nobody listens there).
    lines.once('error', (error: Error) => {
      reject(error);
      lines.close();
    });
    lines.on('line', (line) => {
      if (line.trim().length === 0) return;
      const parsed = parseProgressLine(line);
      if (parsed.kind === 'other') handlers.onOther(line);
      else if (parsed.kind === 'invalid') handlers.onRejected(line, parsed.reason);
      else {
        try {
          handlers.onEvent(parsed.event, line);
        } catch (error) {
          handlers.onRejected(line, (error as Error)?.message ?? String(error));
        }
      }
    });
    lines.once('close', () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    });
  });
}
