import type { LiveClientRequests } from '../protocol/mcp-request-scope.interface.js';
import type { CallOutcome } from './call-outcome.interface.js';
import type { CallRequest } from './call-request.interface.js';
import type { RunningCall } from './running-call.js';

/**
 * Where a call's messages go and how its origin takes part in its life: the other half of a `CallRequest`. One port
 * serves many calls (build it once per transport, connection or wire), so its methods get the call instead of
 * closing over it: nothing is allocated for it per call.
 *
 * The runner calls, in this order: `open` (before dispatch), `liveRequests` (while building the scope), `finish`
 * (with the outcome), `close` (after the handler returned, whether or not a timeout or the drain answered first).
 * `onShutdown` and `onDeadline` come from the drain, between `open` and `close`.
 */
export interface CallPort<R extends CallRequest = CallRequest> {
  /** The wire the call's results and errors are shaped for (`scope.wire`); absent: 2026-07-28. */
  readonly wire?: 'modern' | 'legacy';
  /**
   * Connects the consumer of `call.channel` (HTTP's response writer, stdio's line writer, a task store) and records
   * the call where the origin must find it again (stdio: by id, for `notifications/cancelled`). A consumer that sees
   * its client go away abandons the channel and, if `call.route?.cancellableByDisconnect`, aborts `call.cancellation`.
   */
  open(call: RunningCall<R>): void;
  /** Server→client requests answered while the call runs (2025-11-25 sessions: `ctx.elicit` asks live). */
  liveRequests?(call: RunningCall<R>): LiveClientRequests;
  /**
   * Turns the outcome into the call's final response on `call.channel`. Absent: the 2026-07-28 shapes
   * (`McpDispatcher.respond`: `resultType`, `serverInfo`, errors with their HTTP status).
   */
  finish?(call: RunningCall<R>, outcome: CallOutcome): void;
  /** The handler is done and the call no longer in flight: undo what `open` recorded. */
  close?(call: RunningCall<R>): void;
  /** The server started closing while the call is in flight (HTTP: no keep-alive after this response). */
  onShutdown?(call: RunningCall<R>): void;
  /** The shutdown deadline passed and the drain answered the call (HTTP: drop a reader that never drains). */
  onDeadline?(call: RunningCall<R>): void;
}
