import { IllegalProgressError } from './illegal-progress.error.js';
import type { ProgressSink } from './progress-sink.interface.js';

/**
 * The progress of one request, shared by every emitter the handler creates and by `ctx.progressFrom` (internal):
 * the spec requires the values sent on one progress token to increase with each notification, and each emitter only
 * knows its own values.
 *
 * A value not above the last one accepted for the request throws `IllegalProgressError`, like a value that goes
 * back inside one emitter. Throwing rather than dropping silently: a second emitter that restarts at 0 is a bug in
 * the handler (its progress bar would freeze with no explanation), and the same product rule — strictly increasing,
 * enforced with an error — must hold whichever emitter broke it. The check runs whether or not the request carries
 * a progress token, so a test without a token finds the bug too; only sending depends on the token.
 * `ctx.progressFrom` keeps its own rule: a line it cannot report is skipped with a warning.
 */
export class RequestProgressSink implements ProgressSink {
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly target: ProgressSink) {}

  /** The last value accepted for the request, or undefined before the first. */
  get current(): number | undefined {
    return this.last === Number.NEGATIVE_INFINITY ? undefined : this.last;
  }

  send(progress: number, total: number | undefined, message: string | undefined): boolean {
    if (!(progress > this.last)) {
      throw new IllegalProgressError(
        `progress must strictly increase across all emitters of a request: ${progress} after ${this.last} sent by another ` +
          'emitter or progressFrom; report a request through one emitter, or continue from the last value sent',
      );
    }
    this.last = progress;
    return this.target.send(progress, total, message);
  }
}
