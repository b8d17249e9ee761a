import { Inject, Injectable, Optional } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpAuthError } from '../protocol/access-token.interface.js';
import type { McpError } from '../protocol/mcp.error.js';
import type { LiveClientRequests } from '../protocol/mcp-request-scope.interface.js';
import type { CallOutcome } from '../server/call-outcome.interface.js';
import { MCP_EXTENSIONS, type McpExtension } from '../server/extension.interface.js';
import { errorResponse, McpDispatcher } from '../server/mcp.dispatcher.js';
import type { McpRoute } from '../server/mcp-route.interface.js';
import type { RunningCall } from '../server/running-call.js';
import type { FinalResponse, McpWireProfile } from '../server/wire-profile.interface.js';
import type { LegacyCallRequest } from './legacy-call-request.interface.js';
import { type LegacyTaskSupportOf, toLegacyError, toLegacyResult } from './legacy-result.shaper.js';
import { McpLegacyTasks } from './legacy-tasks.service.js';
import { SessionClientRequests } from './session-client-requests.js';
import { LATEST_LEGACY_VERSION } from './legacy-versions.constants.js';

/**
 * The 2025-11-25 wire (`McpWireProfile`) for the calls of a session, on HTTP and stdio alike (spec 2025-11-25:
 * basic/transports, "Sending Messages to the Server", and basic/utilities/cancellation; the shapes: spec 2026-07-28:
 * changelog):
 * - its routes: the core methods, with `tools/call` turning task tools into tasks the way this revision does, and
 *   the routes of the extensions that have a face here (`McpExtension.legacy`: skills with the same routes, tasks
 *   with `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` of this revision); events have none (`-32601`);
 * - results and errors in this revision's shapes, errors with HTTP 200 (a 404 would tell the client its session is
 *   gone), except authorization failures: 401/403 with their challenge on both wires (spec 2025-11-25:
 *   basic/authorization); the session's own refusals keep their status (`errorAnswer`, the one rule);
 * - the session knows each call while it runs (so `notifications/cancelled` and the end of the session abort it),
 *   `ctx.elicit` becomes a real server→client request on the call's own stream, and a dropped connection cancels
 *   nothing.
 *
 * Session calls are `LegacyCallRequest`s (the session stands in for the 2026 `_meta`): only their transports run
 * calls with this profile.
 */
@Injectable()
export class McpLegacyWire implements McpWireProfile {
  readonly name = 'legacy';
  readonly revision = LATEST_LEGACY_VERSION;
  readonly connectionBound = false;
  private readonly routes: ReadonlyMap<string, McpRoute>;
  /** Which tools may run as tasks, for `execution.taskSupport` in `tools/list` (absent: no 2025-11-25 tasks). */
  private readonly taskSupport?: LegacyTaskSupportOf;

  constructor(
    private readonly dispatcher: McpDispatcher,
    private readonly options: McpResolvedOptions,
    @Optional() @Inject(MCP_EXTENSIONS) extensions: readonly McpExtension[] = [],
    @Optional() tasks?: McpLegacyTasks,
  ) {
    const served = extensions.flatMap((extension) =>
      extension.legacy ? [extension.legacy.routes?.() ?? extension.routes?.() ?? []] : [],
    );
    const toolTasks = extensions.find((extension) => extension.legacy?.toolTasks)?.legacy?.toolTasks;
    this.routes = dispatcher.routeTable(
      toolTasks,
      served.flatMap((routes) => [...routes]),
    );
    this.taskSupport = tasks && ((name) => tasks.taskSupport(name));
  }

  findRoute(method: string): McpRoute | undefined {
    return this.dispatcher.gate(this.routes.get(method));
  }

  finalResponse(call: RunningCall, outcome: CallOutcome): FinalResponse {
    if (outcome.ok)
      return {
        message: {
          jsonrpc: '2.0',
          id: call.id,
          result: toLegacyResult(call.request.method, outcome.result, this.taskSupport),
        },
        httpStatus: 200,
      };
    const answer = this.errorAnswer(outcome.error, 'call');
    return { message: errorResponse(call.id, answer.error), httpStatus: answer.httpStatus };
  }

  /**
   * The one rule for the HTTP status of a session's errors, and whether they take this revision's shape (spec
   * 2025-11-25: basic/transports, "Session Management"; docs/two-wires.md):
   * - an authorization failure (`McpAuthError`) keeps its 400/401/403, with its challenge, wherever it arises;
   * - an error of a call (`'call'`: what its handler, its pipeline or its route answered — a throttler's 429 too) is
   *   answered with HTTP 200 in the 2025-11-25 shape: any other status would tell the client its session is gone;
   * - an error of the session itself (`'session'`: raised before a call runs — an unknown or ended session's 404, a
   *   wrong `MCP-Protocol-Version`'s 400, the calls-in-flight caps' 429/503) keeps its status, which is what the
   *   client must act on (initialize again, wait); one with HTTP 200 (a session method's `-32602`) takes the shape.
   *
   * An error answered with a status other than 200 is sent as it is (its challenge and `Retry-After` come from it).
   */
  errorAnswer(error: McpError, raised: 'call' | 'session'): LegacyErrorAnswer {
    const keepsStatus = error instanceof McpAuthError || (raised === 'session' && error.httpStatus !== 200);
    return keepsStatus ? { error, httpStatus: error.httpStatus } : { error: toLegacyError(error), httpStatus: 200 };
  }

  opened(call: RunningCall): void {
    sessionCall(call).session.trackCall(call.id, call.cancellation);
  }

  liveRequests(call: RunningCall): LiveClientRequests {
    return new SessionClientRequests(
      sessionCall(call).session,
      call.channel,
      call.cancellation,
      this.options.clientRequestTimeoutMs,
    );
  }

  closed(call: RunningCall): void {
    sessionCall(call).session.untrackCall(call.id);
  }
}

/** How a session's error is answered: the error to send and the HTTP status of the answer (`McpLegacyWire.errorAnswer`). */
export interface LegacyErrorAnswer {
  readonly error: McpError;
  readonly httpStatus: number;
}

/** A call this profile runs: only session transports hand it calls, and each of theirs names its session. */
function sessionCall(call: RunningCall): LegacyCallRequest {
  return call.request as LegacyCallRequest;
}
