import type { ServerResponse } from 'node:http';
import type { McpResolvedOptions } from '../../config/resolved-options.js';
import type { CallOutcome } from '../../server/call-outcome.interface.js';
import type { CallPort } from '../../server/call-port.interface.js';
import type { CallRequest } from '../../server/call-request.interface.js';
import type { RunningCall } from '../../server/running-call.js';
import { closeAfter, closeAfterDeadline } from './close-after.util.js';
import { type AcceptedMediaTypes, type QueueBounds, ResponseWriter, setChallengeHeader } from './response.writer.js';

/** A call that came over HTTP: what the port needs to write it. */
export interface HttpCallRequest extends CallRequest {
  /** The raw response the call's messages are written to. */
  readonly response: ServerResponse;
  /** What the client's Accept header allows: one JSON body, an SSE stream, or both. */
  readonly accepted: AcceptedMediaTypes;
}

/** The queue bounds of HTTP responses: request streams coalesce progress for slow readers; streams disconnect them. */
export interface HttpQueueBounds {
  readonly response: QueueBounds;
  readonly stream: QueueBounds;
}

/** The queue bounds the options set, for each kind of response. */
export function httpQueueBounds(options: McpResolvedOptions): HttpQueueBounds {
  const bounds = { maxFrames: options.maxQueuedFrames, maxBytes: options.maxQueuedBytes };
  return { response: { ...bounds, overflow: 'coalesce' }, stream: { ...bounds, overflow: 'disconnect' } };
}

/**
 * Writes calls to their HTTP responses through a `ResponseWriter` (JSON or SSE, decided by the first message), with
 * the bounds of their route's delivery, on both wires: a client that goes away cancels a call whose wire is
 * `connectionBound` (2026-07-28) and whose route allows it. With `auth`, an authorization failure raised while the
 * call ran (the scope check before a handler, `McpAuthError`) gets its OAuth challenge as `WWW-Authenticate`: the
 * response channel carries only the JSON-RPC body. When the server closes, a connection ends with its call's
 * response; a connection-bound call still unread `CLOSE_GRACE_MS` after the drain's deadline loses its connection, so a
 * reader that never drains cannot hold the shutdown.
 */
export class HttpCallPort<R extends HttpCallRequest = HttpCallRequest> implements CallPort<R> {
  constructor(
    private readonly bounds: HttpQueueBounds,
    /** Whether `auth` is configured: only then can a call end in an authorization failure with a challenge. */
    private readonly challenges: boolean,
  ) {}

  open(call: RunningCall<R>): void {
    const { response, accepted, wire } = call.request;
    const cancelOnDisconnect = wire.connectionBound && call.route?.cancellableByDisconnect === true;
    new ResponseWriter(
      call.channel,
      response,
      accepted,
      call.streaming ? this.bounds.stream : this.bounds.response,
      cancelOnDisconnect ? call.cancellation : undefined,
    );
  }

  beforeResponse(call: RunningCall<R>, outcome: CallOutcome): void {
    if (this.challenges && !outcome.ok) setChallengeHeader(call.request.response, outcome.error);
  }

  onShutdown(call: RunningCall<R>): void {
    closeAfter(call.request.response);
  }

  onDeadline(call: RunningCall<R>): void {
    if (call.request.wire.connectionBound) closeAfterDeadline(() => call.request.response.destroy());
  }
}
