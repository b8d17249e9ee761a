import { Subject, type Observable } from 'rxjs';
import type { JsonRpcErrorResponse, JsonRpcNotification, JsonRpcRequest, JsonRpcResultResponse } from './json-rpc.interface.js';

/**
 * What a request's response channel carries: notifications (and, on the 2025-11-25 wire only, server→client
 * requests) first, then exactly one final response.
 */
export type ChannelMessage =
  | { type: 'notification'; message: JsonRpcNotification | JsonRpcRequest }
  | { type: 'response'; message: JsonRpcResultResponse | JsonRpcErrorResponse; httpStatus: number }
  | { type: 'keepalive' };

/**
 * The per-request stream of outgoing messages (DESIGN D2). Handlers' emitters push notifications; the
 * dispatcher pushes the final response and completes it; the transport's writer subscribes and decides between
 * one JSON body and an SSE stream from the first message it sees.
 */
export class ResponseChannel {
  private readonly subject = new Subject<ChannelMessage>();
  private finished = false;

  /** Messages in the order they were sent; completes after the final response. */
  readonly messages$: Observable<ChannelMessage> = this.subject.asObservable();

  /** Whether the final response was sent (or the channel was abandoned); later notifications are dropped. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** Sends a notification that belongs to this request. Returns false once the response went out. */
  notify(message: JsonRpcNotification): boolean {
    if (this.finished) return false;
    this.subject.next({ type: 'notification', message });
    return true;
  }

  /**
   * Sends the final response and completes the channel. Only the first call has an effect. `httpStatus` is used
   * when the response is the first message (a plain JSON answer).
   */
  respond(message: JsonRpcResultResponse | JsonRpcErrorResponse, httpStatus = 200): void {
    if (this.finished) return;
    this.finished = true;
    this.subject.next({ type: 'response', message, httpStatus });
    this.subject.complete();
  }

  /**
   * Sends a server→client request that belongs to this request (2025-11-25 sessions only: the 2026 wire never
   * sends requests). Returns false once the response went out.
   */
  request(message: JsonRpcRequest): boolean {
    if (this.finished) return false;
    this.subject.next({ type: 'notification', message });
    return true;
  }

  /** Asks the transport to keep a long-lived stream open (an SSE comment); no effect before streaming. */
  keepAlive(): void {
    if (!this.finished) this.subject.next({ type: 'keepalive' });
  }

  /** Ends the channel without a response (the client went away). */
  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.subject.complete();
  }
}
