import type { CallOutcome } from './call-outcome.interface.js';
import type { CallRequest } from './call-request.interface.js';
import type { RunningCall } from './running-call.js';

/**
 * Where a call's messages go and how its transport takes part in its life: the other half of a `CallRequest`. One
 * port serves many calls (build it once per transport, connection or worker), so its methods get the call instead of
 * closing over it: nothing is allocated for it per call. A port never shapes an answer: the runner writes the final
 * response in the shapes of the call's wire (`McpWireProfile`); a port only adds what its transport sends beside it.
 *
 * The runner calls, in this order: `open` (before dispatch), `beforeResponse` (with the outcome, just before the
 * final response goes on the channel), `close` (after the handler returned, whether or not a timeout or the drain
 * answered first). `onShutdown` and `onDeadline` come from the drain, between `open` and `close`.
 */
export interface CallPort<R extends CallRequest = CallRequest> {
  /**
   * Connects the consumer of `call.channel` (HTTP's response writer, stdio's line writer, a task store) and records
   * the call where the origin must find it again (stdio: by id, for `notifications/cancelled`). A consumer that sees
   * its client go away abandons the channel and, if the call's wire is `connectionBound` and its route
   * `cancellableByDisconnect`, aborts `call.cancellation`.
   */
  open(call: RunningCall<R>): void;
  /**
   * The transport's own part of the final response, before it goes on the channel: HTTP puts the bearer challenge of
   * an authorization failure (`McpAuthError`) in `WWW-Authenticate`, since the channel carries only the body.
   */
  beforeResponse?(call: RunningCall<R>, outcome: CallOutcome): void;
  /** The handler is done and the call no longer in flight: undo what `open` recorded. */
  close?(call: RunningCall<R>): void;
  /** The server started closing while the call is in flight (HTTP: no keep-alive after this response). */
  onShutdown?(call: RunningCall<R>): void;
  /** The shutdown deadline passed and the drain answered the call (HTTP: drop a reader that never drains). */
  onDeadline?(call: RunningCall<R>): void;
}
