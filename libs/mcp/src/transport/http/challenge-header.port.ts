import type { CallOutcome } from '../../server/call-outcome.interface.js';
import type { CallPort } from '../../server/call-port.interface.js';
import type { RunningCall } from '../../server/running-call.js';
import type { HttpCallRequest } from './http-call.port.js';
import { setChallengeHeader } from './response.writer.js';

/**
 * An HTTP call port that answers authorization failures raised while the call ran (the scope check before a handler,
 * `McpAuthError`) with their OAuth challenge as `WWW-Authenticate`, on both wires: the response channel carries only
 * the JSON-RPC body, so the header is put on the response here, where the outcome is still an error object, just
 * before the final response goes through the channel. Everything else is the wrapped port's.
 */
export class ChallengeHeaderPort<R extends HttpCallRequest> implements CallPort<R> {
  readonly wire: CallPort<R>['wire'];

  private readonly respond: (call: RunningCall<R>, outcome: CallOutcome) => void;

  constructor(
    private readonly inner: CallPort<R>,
    /** The final response when the wrapped port has no `finish` of its own (the 2026-07-28 shapes). */
    respond?: (call: RunningCall<R>, outcome: CallOutcome) => void,
  ) {
    this.wire = inner.wire;
    const finish = respond ?? inner.finish?.bind(inner);
    if (!finish) throw new Error('ChallengeHeaderPort: the wrapped port has no finish, and none was given');
    this.respond = finish;
  }

  open(call: RunningCall<R>): void {
    this.inner.open(call);
  }

  liveRequests(call: RunningCall<R>): ReturnType<NonNullable<CallPort<R>['liveRequests']>> {
    // The runner asks every port; a wire without live requests answers undefined, as an absent method would.
    return this.inner.liveRequests?.(call) as ReturnType<NonNullable<CallPort<R>['liveRequests']>>;
  }

  finish(call: RunningCall<R>, outcome: CallOutcome): void {
    if (!outcome.ok) setChallengeHeader(call.request.response, outcome.error);
    this.respond(call, outcome);
  }

  close(call: RunningCall<R>): void {
    this.inner.close?.(call);
  }

  onShutdown(call: RunningCall<R>): void {
    this.inner.onShutdown?.(call);
  }

  onDeadline(call: RunningCall<R>): void {
    this.inner.onDeadline?.(call);
  }
}
