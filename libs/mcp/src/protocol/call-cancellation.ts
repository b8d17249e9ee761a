/**
 * The cancellation of one call. Transports, the call timeout and the shutdown drain call `abort()`; handlers read
 * `ctx.signal`.
 *
 * The `AbortSignal` is created only when something asks for it: most calls end without anyone listening, and an
 * `AbortController` is one of the costliest objects of a call (its creation was ~6% of the CPU of a tiny tool call
 * in the bench profiles, docs/performance.md). `aborted` answers without creating one.
 */
export class CallCancellation {
  private controller?: AbortController;
  private reason: unknown;
  private cancelled = false;

  /** Whether the call was cancelled (client gone, timeout, shutdown). */
  get aborted(): boolean {
    return this.cancelled;
  }

  /** The call's signal, created on first use (already aborted, with its reason, if the call was cancelled). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Cancels the call; only the first reason counts. */
  abort(reason?: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
