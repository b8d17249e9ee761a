import type { ServerResponse } from 'node:http';
import type { McpResolvedOptions } from '../../config/resolved-options.js';
import type { CallPort } from '../../server/call-port.interface.js';
import type { CallRequest } from '../../server/call-request.interface.js';
import type { RunningCall } from '../../server/running-call.js';
import { closeAfter } from './close-after.util.js';
import { type AcceptedMediaTypes, type QueueBounds, ResponseWriter } from './response.writer.js';

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
 * the bounds of their route's delivery. On the 2026-07-28 wire, a client that goes away cancels a call whose route
 * allows it; on the 2025-11-25 wire it never does (only `notifications/cancelled` cancels; spec 2025-11-25:
 * basic/transports, "Sending Messages to the Server"). When the server closes, a connection ends with its call's
 * response; a 2026 call still unread a second after the drain's deadline loses its connection, so a reader that
 * never drains cannot hold the shutdown.
 */
export class HttpCallPort implements CallPort<HttpCallRequest> {
  constructor(
    private readonly bounds: HttpQueueBounds,
    /** Whether the calls are 2025-11-25 session calls. */
    private readonly legacy: boolean,
  ) {}

  open(call: RunningCall<HttpCallRequest>): void {
    const { response, accepted } = call.request;
    const cancelOnDisconnect = !this.legacy && call.route?.cancellableByDisconnect === true;
    new ResponseWriter(
      call.channel,
      response,
      accepted,
      call.streaming ? this.bounds.stream : this.bounds.response,
      cancelOnDisconnect ? call.cancellation : undefined,
    );
  }

  onShutdown(call: RunningCall<HttpCallRequest>): void {
    closeAfter(call.request.response);
  }

  onDeadline(call: RunningCall<HttpCallRequest>): void {
    if (!this.legacy) setTimeout(() => call.request.response.destroy(), 1_000).unref();
  }
}
