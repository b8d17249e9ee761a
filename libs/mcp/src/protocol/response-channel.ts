import { Observable, ObjectUnsubscribedError, Subject } from 'rxjs';
import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from './json-rpc.interface.js';

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

/**
 * The consumer of a channel: a transport's writer, or an RxJS subscriber of `messages$`. `next` and `complete` get
 * every message, unless the sink also has `stream`.
 */
export interface ChannelSink {
  next(message: ChannelMessage): void;
  complete(): void;
  /**
   * Called once, at the channel's first notification, with the RxJS `Subject` that carries the call's messages from
   * then on (that notification first, the final response last): the sink subscribes to it (HTTP maps it to the SSE
   * response) and its `next`/`complete` get nothing more. Until then, and for a call whose first message is its
   * final response, messages go to `next` directly and no Subject exists (ADR 0015).
   */
  stream?(messages$: Observable<ChannelMessage>): void;
}

/**
 * The RxJS `Subject` a streaming call's messages flow through. Its `next` runs once per message, thousands of times
 * for a progress loop, and rxjs 7's own allocates a closure and an iterator on every call in the ES5 build Node
 * loads: 15–20 ns a message, a third of the channel's whole cost per notification (ADR 0015). This one hands the
 * message to the same observers without them; subscribing, completing and unsubscribing are rxjs's.
 */
class ChannelSubject extends Subject<ChannelMessage> {
  override next(message: ChannelMessage): void {
    if (this.closed) throw new ObjectUnsubscribedError();
    if (this.isStopped) return;
    const observers = this.observers;
    // A channel has one consumer; with several, a copy keeps delivery whole while one of them unsubscribes.
    if (observers.length === 1) observers[0].next(message);
    else for (const observer of observers.slice()) observer.next(message);
  }
}

/**
 * The per-request stream of outgoing messages (ADR 0002). Handlers' emitters push notifications; the dispatcher
 * pushes the final response and completes it; the transport's writer consumes it and decides between one JSON body
 * and an SSE stream from the first message it sees.
 *
 * A channel has exactly one consumer, connected before the request is dispatched. A call that answers without
 * notifying costs no RxJS machinery: its response goes straight to the consumer (ADR 0015). At the first
 * notification, a consumer that streams (`ChannelSink.stream`) gets an RxJS `Subject`, created then, and every later
 * message is published to it. `messages$` is the whole stream as an Observable, for consumers that compose with RxJS
 * (stdio, the testing kit); they get every message directly.
 */
export class ResponseChannel {
  private sink?: ChannelSink;
  /** The Subject the messages flow through from the first notification on, for a sink that streams. */
  private subject?: Subject<ChannelMessage>;
  private finished = false;
  /** Notifications and server→client requests sent so far (read by telemetry at the end of the call). */
  sent = 0;
  /** Of those, `notifications/progress`. */
  progressSent = 0;
  /**
   * Notifications the transport's bounded queue replaced by a newer one of the same kind for a slow reader (HTTP SSE,
   * ADR 0008). The queue counts here, and telemetry reads it at the end of the call, like `sent`.
   */
  coalescedFrames = 0;
  /** Notifications that queue dropped with nothing newer of their kind in their place. */
  droppedFrames = 0;
  /** 1 when that queue closed the stream because what waited could not be coalesced (`overflow: 'disconnect'`). */
  overflows = 0;

  /** Whether the final response was sent (or the channel was abandoned); later notifications are dropped. */
  get isFinished(): boolean {
    return this.finished;
  }

  /**
   * Connects the channel's one consumer; messages sent before are not replayed. A finished channel completes the
   * sink at once. Returns the function that disconnects it (and the stream it was given, if any).
   */
  connect(sink: ChannelSink): () => void {
    if (this.sink) throw new Error('A response channel has exactly one consumer');
    if (this.finished) {
      sink.complete();
      return () => undefined;
    }
    this.sink = sink;
    return () => {
      if (this.sink !== sink) return;
      this.sink = undefined;
      this.subject = undefined;
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
    this.sent++;
    if (message.method === 'notifications/progress') this.progressSent++;
    this.publish({ type: 'notification', message, json });
    return true;
  }

  /**
   * Sends the final response and completes the channel. Only the first call has an effect. `httpStatus` is used
   * when the response is the first message (a plain JSON answer).
   */
  respond(message: JsonRpcResultResponse | JsonRpcErrorResponse, httpStatus = 200): void {
    if (this.finished) return;
    this.finished = true;
    const sink = this.release();
    sink?.next({ type: 'response', message, httpStatus });
    sink?.complete();
  }

  /**
   * Sends a server→client request that belongs to this request (2025-11-25 sessions only: the 2026 wire never
   * sends requests). Returns false once the response went out.
   */
  request(message: JsonRpcRequest): boolean {
    if (this.finished) return false;
    this.sent++;
    this.publish({ type: 'notification', message });
    return true;
  }

  /** Asks the transport to keep a long-lived stream open (an SSE comment); no effect before streaming. */
  keepAlive(): void {
    if (!this.finished) (this.subject ?? this.sink)?.next({ type: 'keepalive' });
  }

  /** Ends the channel without a response (the client went away). */
  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.release()?.complete();
  }

  /**
   * Sends a notification or a server→client request. At the first one, a sink that streams gets the Subject the
   * messages flow through from then on.
   */
  private publish(message: ChannelMessage): void {
    if (this.subject) {
      this.subject.next(message);
      return;
    }
    const sink = this.sink;
    if (!sink?.stream) {
      sink?.next(message);
      return;
    }
    const subject = (this.subject = new ChannelSubject());
    sink.stream(subject);
    subject.next(message);
  }

  /** Detaches the consumer: the Subject when the call streams, the sink itself otherwise. */
  private release(): ChannelSink | undefined {
    const consumer = this.subject ?? this.sink;
    this.sink = undefined;
    this.subject = undefined;
    return consumer;
  }
}
