import type { JsonRpcErrorResponse, JsonRpcResultResponse } from '../protocol/json-rpc.interface.js';
import type { LiveClientRequests } from '../protocol/mcp-request-scope.interface.js';
import type { McpWireName } from '../protocol/wire-name.js';
import type { CallOutcome } from './call-outcome.interface.js';
import type { McpRoute } from './mcp-route.interface.js';
import type { RunningCall } from './running-call.js';

/** A call's final JSON-RPC response and the HTTP status a transport with statuses answers it with. */
export interface FinalResponse {
  readonly message: JsonRpcResultResponse | JsonRpcErrorResponse;
  readonly httpStatus: number;
}

/**
 * Everything that differs between the protocol revisions a call may speak, chosen once per call by its origin and
 * carried on its request (`CallRequest.wire`; ADR 0030): which methods exist and how each is routed (on 2025-11-25
 * the tasks methods and the tool-task hook of that revision), the final shapes and statuses, whether a call lives
 * with its client's connection, and what the wire adds while a call runs (a session's live server→client requests).
 * Code downstream of the runner never asks which wire a call is on: what differs is already in its route and its
 * answer. Two profiles exist: `McpModernWire` (server/) and `McpLegacyWire` (legacy/).
 */
export interface McpWireProfile {
  readonly name: McpWireName;
  /** The protocol revision the wire is named by (`2026-07-28`, `2025-11-25`), e.g. for telemetry's `nest_mcp.wire`. */
  readonly revision: string;
  /**
   * Whether a call lives with its client's connection: the client going away aborts a call whose route is
   * `cancellableByDisconnect`, and a connection still unread after the drain's deadline is cut. 2026-07-28: yes;
   * 2025-11-25: no (only `notifications/cancelled` cancels; spec 2025-11-25: basic/transports, "Sending Messages to
   * the Server").
   */
  readonly connectionBound: boolean;
  /** The route of `method` on this wire, or `undefined` when it does not exist here or is not advertised (`-32601`). */
  findRoute(method: string): McpRoute | undefined;
  /** The final response of a call's outcome, in this wire's shapes and statuses. */
  finalResponse(call: RunningCall, outcome: CallOutcome): FinalResponse;
  /** The call is connected (after its port's `open`): e.g. its session learns of it, for `notifications/cancelled`. */
  opened?(call: RunningCall): void;
  /** Server→client requests answered while the call runs (2025-11-25 sessions: `ctx.elicit` asks live). */
  liveRequests?(call: RunningCall): LiveClientRequests;
  /** The call is no longer in flight (before its port's `close`): undo what `opened` recorded. */
  closed?(call: RunningCall): void;
}
