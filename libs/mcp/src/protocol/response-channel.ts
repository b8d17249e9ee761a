import { Observable } from 'rxjs';
import type { JsonRpcErrorResponse, JsonRpcNotification, JsonRpcRequest, JsonRpcResultResponse } from './json-rpc.interface.js';

/**
 * What a request's response channel carries: notifications (and, on the 2025-11-25 wire only, server→client
 * requests) first, then exactly one final response.
 */
export type ChannelMessage =
  | {
      type: 'notification';
      message: JsonRpcNotification | JsonRpcRequest;
      /** The message already serialized, when its sender could do it cheaper than `JSON.stringify` (progress). */
      json?: string;
    }
  | { type: 'response'; message: JsonRpcResultResponse | JsonRpcErrorResponse; httpStatus: number }
  | { type: 'keepalive' };

/** The consumer of a channel: a transport's writer, or an RxJS subscriber of `messages$`. */
export interface ChannelSink {
  next(message: ChannelMessage): void;
  complete(): void;
}

/**
 * The per-request stream of outgoing messages (DESIGN D2). Handlers' emitters push notifications; the
 * dispatcher pushes the final response and completes it; the transport's writer consumes it and decides between
 * one JSON body and an SSE stream from the first message it sees.
 *
 * A channel has exactly one consumer, connected before the request is dispatched, so it pushes to it directly
 * rather than through a `Subject` (ADR 0015): a tiny call allocates no subscription machinery at all. `messages$`
 * is the same stream as an Observable, for consumers that compose with RxJS.
 */
export class ResponseChannel {
  private sink?: ChannelSink;
  private finished = false;

  /** Whether the final response was sent (or the channel was abandoned); later notifications are dropped. */
  get isFinished(): boolean {
    return this.finished;
  }

  /**
   * Connects the channel's one consumer; messages sent before are not replayed. A finished channel completes the
   * sink at once. Returns the function that disconnects it.
   */
  connect(sink: ChannelSink): () => void {
    if (this.sink) throw new Error('A response channel has exactly one consumer');
    if (this.finished) {
      sink.complete();
      return () => undefined;
    }
    this.sink = sink;
    return () => {
      if (this.sink === sink) this.sink = undefined;
    };
  }

  /** Messages in the order they were sent; completes after the final response. Subscribe once. */
  get messages$(): Observable<ChannelMessage> {
    return new Observable<ChannelMessage>((subscriber) => this.connect(subscriber));
  }

  /**
   * Sends a notification that belongs to this request; `json`, when given, is its exact serialization. Returns
   * false once the response went out.
   */
  notify(message: JsonRpcNotification, json?: string): boolean {
    if (this.finished) return false;
    this.sink?.next({ type: 'notification', message, json });
    return true;
  }

  /**
   * Sends the final response and completes the channel. Only the first call has an effect. `httpStatus` is used
   * when the response is the first message (a plain JSON answer).
   */
  respond(message: JsonRpcResultResponse | JsonRpcErrorResponse, httpStatus = 200): void {
    if (this.finished) return;
    this.finished = true;
    const sink = this.sink;
    this.sink = undefined;
    sink?.next({ type: 'response', message, httpStatus });
    sink?.complete();
  }

  /**
   * Sends a server→client request that belongs to this request (2025-11-25 sessions only: the 2026 wire never
   * sends requests). Returns false once the response went out.
   */
  request(message: JsonRpcRequest): boolean {
    if (this.finished) return false;
    this.sink?.next({ type: 'notification', message });
    return true;
  }

  /** Asks the transport to keep a long-lived stream open (an SSE comment); no effect before streaming. */
  keepAlive(): void {
    if (!this.finished) this.sink?.next({ type: 'keepalive' });
  }

  /** Ends the channel without a response (the client went away). */
  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    const sink = this.sink;
    this.sink = undefined;
    sink?.complete();
  }
}
