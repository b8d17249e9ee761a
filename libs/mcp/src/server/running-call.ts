import { CallCancellation } from '../protocol/call-cancellation.js';
import type { AdmissionLease } from '../protocol/admission-quota.js';
import type { JsonRpcId } from '../protocol/json-rpc.interface.js';
import { ResponseChannel } from '../protocol/response-channel.js';
import type { TrackedCall } from './call.tracker.js';
import type { CallOutcome } from './call-outcome.interface.js';
import type { CallPort } from './call-port.interface.js';
import type { CallRequest } from './call-request.interface.js';
import type { McpRoute } from './mcp-route.interface.js';

/**
 * A call the runner admitted, as its port and the tracker see it: the request, its route (absent for an unknown
 * method, answered `-32601`), and what the runner gave it — a response channel, a cancellation, maybe a slot of the
 * calls-in-flight caps. It is also the tracker's record of the call, so a call costs one object here, not several.
 */
export class RunningCall<R extends CallRequest = CallRequest> implements TrackedCall {
  /** Where the call's notifications and final response go; `CallPort.open` connects its consumer. */
  readonly channel = new ResponseChannel();
  /** The call's `ctx.signal`: aborted by its origin (client gone, `notifications/cancelled`), the timeout or the drain. */
  readonly cancellation = new CallCancellation();
  /** When the call times out; set by the tracker when `callTimeoutMs` applies. */
  deadline?: number;

  constructor(
    readonly request: R,
    readonly route: McpRoute | undefined,
    readonly port: CallPort<R>,
    /** The call's slot of the calls-in-flight caps, given back when it is no longer in flight. */
    readonly lease: AdmissionLease | undefined,
  ) {}

  get id(): JsonRpcId {
    return this.request.id;
  }

  /** Whether the call is a long-lived stream (`delivery: 'stream'`): not timed, not counted. */
  get streaming(): boolean {
    return this.route?.delivery === 'stream';
  }

  /**
   * Sends the call's final response for `outcome`: in the shapes and statuses of its wire (`McpWireProfile
   * .finalResponse`), after its port added its transport's part (`beforeResponse`). The one path every answer takes:
   * the handler's outcome (the runner), a timeout and the drain's deadline (the tracker). A call already answered
   * ignores it (the channel keeps its first final response).
   */
  respond(outcome: CallOutcome): void {
    const { message, httpStatus } = this.request.wire.finalResponse(this, outcome);
    this.port.beforeResponse?.(this, outcome);
    this.channel.respond(message, httpStatus);
  }

  /** The drain reached the call: its port's `onShutdown`. */
  onShutdown(): void {
    this.port.onShutdown?.(this);
  }

  /** The drain answered the call at its deadline: its port's `onDeadline`. */
  onDeadline(): void {
    this.port.onDeadline?.(this);
  }
}
