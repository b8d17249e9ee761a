import type { createProgressEvent, formatProgressEvent } from 'nest-mcp/progress';
import { CliError } from './cli.error.js';
import type { ProgressReporter } from './progress-reporter.interface.js';
import { escapeUnsafeJson } from './terminal-text.sanitizer.js';

/** The part of the `ProgressEvent` codec of `nest-mcp/progress` that writes events. */
interface ProgressEventCodec {
  createProgressEvent: typeof createProgressEvent;
  formatProgressEvent: typeof formatProgressEvent;
}

/**
 * Machine-readable progress: one `ProgressEvent` line per value on `stream` (stderr), carrying the trace ids of the
 * `traceparent` the CLI sent with the request, so the lines can be joined to the server's own. The server's message
 * keeps its exact value, but no control character of it is written raw (stderr is often a terminal). The lines are
 * written by the server library's own codec, so they match what a `nest-mcp` server writes and reads.
 */
export class NdjsonProgressReporter implements ProgressReporter {
  private constructor(
    private readonly stream: { write(chunk: string): unknown },
    private readonly traceparent: string | undefined,
    private readonly codec: ProgressEventCodec,
  ) {}

  /**
   * A reporter writing to `stream`. Loads `nest-mcp/progress` on first use: the progress contract alone, which loads
   * nothing of Nest or the server; loaded here rather than imported, so that a missing `nest-mcp` (a peer) is a clear
   * error of this command only, and `--help`, `--version` and a run on a terminal never look for it.
   */
  static async open(stream: { write(chunk: string): unknown }, traceparent?: string): Promise<NdjsonProgressReporter> {
    const codec = await import('nest-mcp/progress').catch((error: unknown) => {
      throw new CliError(
        `cannot load nest-mcp, which nest-mcp-cli needs beside it (npm i -D nest-mcp): ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    return new NdjsonProgressReporter(stream, traceparent, codec);
  }

  report(progress: number, total: number | undefined, message: string | undefined): void {
    const { createProgressEvent, formatProgressEvent } = this.codec;
    this.stream.write(
      escapeUnsafeJson(
        formatProgressEvent(createProgressEvent({ progress, total, message }, { traceparent: this.traceparent })),
      ),
    );
  }

  /** One line `{"task":{"taskId","status","statusMessage"}}` per change, beside the `ProgressEvent` lines. */
  reportStatus(taskId: string, status: string, message: string | undefined): void {
    this.stream.write(escapeUnsafeJson(`${JSON.stringify({ task: { taskId, status, statusMessage: message } })}\n`));
  }

  suspend(): void {}

  finish(): void {}
}
