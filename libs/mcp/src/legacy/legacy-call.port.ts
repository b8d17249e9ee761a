import { McpAuthError } from '../protocol/access-token.interface.js';
import type { LiveClientRequests } from '../protocol/mcp-request-scope.interface.js';
import { errorResponse } from '../server/mcp.dispatcher.js';
import type { CallOutcome } from '../server/call-outcome.interface.js';
import type { CallPort } from '../server/call-port.interface.js';
import type { RunningCall } from '../server/running-call.js';
import type { LegacyCallRequest } from './legacy-call-request.interface.js';
import { type LegacyTaskSupportOf, toLegacyError, toLegacyResult } from './legacy-result.shaper.js';
import { SessionClientRequests } from './session-client-requests.js';

/**
 * The 2025-11-25 wire around a transport's port (spec 2025-11-25: basic/transports, "Sending Messages to the Server",
 * and basic/utilities/cancellation; the shapes: spec 2026-07-28: changelog): the session knows the call while it runs
 * (so `notifications/cancelled` and the end of the session abort it), `ctx.elicit` becomes a real server→client request
 * on the call's own stream, and results and errors take this revision's shapes (errors with HTTP 200). Where the
 * messages go is the transport's port; build one per transport (`McpLegacyWireService.callPort`).
 */
export class LegacyCallPort<R extends LegacyCallRequest> implements CallPort<R> {
  readonly wire = 'legacy';

  constructor(
    private readonly transport: CallPort<R>,
    private readonly clientRequestTimeoutMs: number,
    /** Which tools may run as tasks, for `execution.taskSupport` in `tools/list` (absent: no 2025-11-25 tasks). */
    private readonly taskSupport?: LegacyTaskSupportOf,
  ) {}

  open(call: RunningCall<R>): void {
    this.transport.open(call);
    call.request.session.trackCall(call.id, call.cancellation);
  }

  liveRequests(call: RunningCall<R>): LiveClientRequests {
    return new SessionClientRequests(call.request.session, call.channel, call.cancellation, this.clientRequestTimeoutMs);
  }

  finish(call: RunningCall<R>, outcome: CallOutcome): void {
    if (outcome.ok) call.channel.respond({ jsonrpc: '2.0', id: call.id, result: toLegacyResult(call.request.method, outcome.result, this.taskSupport) });
    // Errors are HTTP 200 on this wire, except authorization failures: 401/403 with their challenge on both wires
    // (spec 2025-11-25: basic/authorization).
    else call.channel.respond(errorResponse(call.id, toLegacyError(outcome.error)), outcome.error instanceof McpAuthError ? outcome.error.httpStatus : 200);
  }

  close(call: RunningCall<R>): void {
    call.request.session.untrackCall(call.id);
    this.transport.close?.(call);
  }

  onShutdown(call: RunningCall<R>): void {
    this.transport.onShutdown?.(call);
  }

  onDeadline(call: RunningCall<R>): void {
    this.transport.onDeadline?.(call);
  }
}
