import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';

/**
 * What a handler's failure becomes when its call was cancelled first (`ctx.signal` fired: the client went away or
 * sent `notifications/cancelled`, its task was cancelled, the call timed out, the server is shutting down). A
 * cancelled call ending is no failure, and anyone who may cancel must not be able to fill the log: as an `McpError`
 * (an `IntrinsicException`) it is logged neither by Nest's exceptions handler nor by the library. `cause` is what the
 * handler threw (usually an `AbortError`). Whoever still waits for the call gets `-32603` "The call was cancelled
 * (<the signal's reason>)", e.g. a client whose call the shutdown drain cut short; usually nobody does (a client that
 * went away, a cancelled task, which keeps its `cancelled` state).
 */
export class McpCallCancelledError extends McpError {
  constructor(
    readonly cause: unknown,
    /** The signal's reason (`Error('The server is shutting down')`, `Error('The task was cancelled')`…). */
    reason: unknown,
  ) {
    super(
      McpErrorCode.InternalError,
      `The call was cancelled (${reason instanceof Error ? reason.message : String(reason)})`,
    );
    this.name = 'McpCallCancelledError';
  }
}
