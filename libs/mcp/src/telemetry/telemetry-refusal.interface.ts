import type { IncomingMessage } from 'node:http';
import type { JsonRpcId } from '../protocol/json-rpc.interface.js';

/**
 * A request the HTTP transport refused before it reached the call runner, as telemetry records it
 * (`McpTelemetry.recordRefusal`): what the edge knew when it answered. Read structurally, so that this layer needs
 * nothing of the transport above it.
 */
export interface TelemetryRefusal {
  /** The Node request: its HTTP version and the peer's address and port. */
  readonly incoming: IncomingMessage;
  /** The refusal as it was answered: JSON-RPC code and message, and the HTTP status. */
  readonly error: { readonly code: number; readonly message: string; readonly httpStatus: number };
  /** `performance.now()` when the request reached the endpoint, before its first check; now when unknown. */
  readonly receivedAt?: number;
  /** The JSON-RPC request, when its body was read as one before the refusal. */
  readonly request?: {
    readonly method: string;
    readonly id?: JsonRpcId;
    /** `params._meta`: the trace context the client sent. */
    readonly meta?: unknown;
    /** Whether the server implements the method (otherwise recorded as `_OTHER`). */
    readonly implemented: boolean;
  };
}
