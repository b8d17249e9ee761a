import {
  Observable,
  type Observer,
  type OperatorFunction,
  type Subscriber,
  type Subscription,
  type Unsubscribable,
} from 'rxjs';
import type { ChannelMessage } from '../../protocol/response-channel.js';
import { type SseFrame, sseFrameOf, sseTextOf } from './sse-frame.util.js';

/** Bounds of the queue kept for a client that reads slower than the handler writes (ADR 0008). */
export interface QueueBounds {
  maxFrames: number;
  maxBytes: number;
  /**
   * At the bound: `coalesce` keeps the newest progress per token and drops other notifications (request streams).
   * `disconnect` (listen streams, whose change notifications must not be lost silently): a change notification
   * replaces the queued one of the same list or URI, at any queue length; anything else that does not fit closes the
   * response.
   */
  overflow: 'coalesce' | 'disconnect';
}

/** What the queue needs to know of the socket it feeds: whether it can take more now, and when it can again. */
export interface FrameFlow {
  /** True while the socket cannot take more (its last write was refused and it has not drained since). */
  readonly full: boolean;
  /** Emits each time a full socket can take more again. */
  readonly drained$: Observable<unknown>;
}

/**
 * Where the queue counts what a slow reader did not get (read by telemetry when the call ends: the response's
 * `ResponseChannel`). Plain integer increments: counting costs nothing more when nobody records it.
 */
export interface QueueCounters {
  /** Notifications replaced by a newer one of the same kind (progress of the same token, the same change). */
  coalescedFrames: number;
  /** Notifications dropped at the bound with nothing newer of their kind in their place; the stream went on. */
  droppedFrames: number;
  /** Streams the queue ended because a frame neither coalesced nor fitted (`disconnect`): 0, or 1. */
  overflows: number;
}

/** What `sseQueue` emits: the frames of one tick, joined; `last` when the response ends with them. */
export interface SseChunk {
  data: string;
  last: boolean;
}

/** The error a `disconnect` queue ends with when a frame that cannot be coalesced does not fit. */
export class QueueOverflowError extends Error {
  constructor(bounds: QueueBounds) {
    super(`The client reads too slowly: more than ${bounds.maxFrames} frames or ${bounds.maxBytes} bytes are waiting`);
    this.name = 'QueueOverflowError';
  }
}

/** Frames of one tick leave together, in pieces of about one socket high-water mark (16 KiB). */
const MAX_CHUNK_CHARS = 16 * 1024;

/**
 * The SSE side of a streamed response, as an operator: the call's channel messages in, chunks for the socket out.
 *
 * While `flow` can take more, each message's frame goes straight into the chunk of the current tick: the frames of
 * one tick (a handler emitting in a loop) leave as one chunk on the next tick, or as soon as they reach 16 KiB
 * (ADR 0015), and the final response leaves at once with whatever the tick still holds, in a `last` chunk. While
 * `flow` is full, frames wait in a bounded queue and leave in order each time it drains (ADR 0008).
 *
 * At the bound, a new progress frame replaces the waiting one of its token (progress only moves forward, so the
 * newest value is all a late reader needs) or, failing that, the oldest other notification; other notifications are
 * dropped. The final response is always queued, never dropped or reordered. With `overflow: 'disconnect'` (listen
 * streams), a change notification replaces the waiting one of the same list or URI at any length, and a frame that
 * neither coalesces nor fits ends the stream with a {@link QueueOverflowError}. Keep-alive comments are dropped while
 * frames wait. When the messages end without a final response, what waits still leaves, in a `last` chunk.
 *
 * @example
 * subject.pipe(sseQueue({ maxFrames: 128, maxBytes: 65_536, overflow: 'coalesce' }, socket)).subscribe(socket);
 */
export function sseQueue(
  bounds: QueueBounds,
  flow: FrameFlow,
  counters: QueueCounters = { coalescedFrames: 0, droppedFrames: 0, overflows: 0 },
): OperatorFunction<ChannelMessage, SseChunk> {
  return (messages$) =>
    new Observable<SseChunk>((subscriber) => {
      const stream = new SseQueueStream(bounds, flow, counters, subscriber);
      stream.connect(messages$);
      // The stream is its own teardown (one object less per subscription than a closure).
      return stream;
    });
}

/**
 * One subscription of `sseQueue`: the observer of the messages, and its state. A class rather than closures, and
 * the queue and the drain subscription made only when a frame has to wait, because an idle listen stream holds one
 * of these for as long as it stays open.
 */
class SseQueueStream implements Observer<ChannelMessage>, Unsubscribable {
  /** Frames of the current tick, emitted on the next one. */
  private chunk = '';
  private chunkScheduled = false;
  /** The last chunk went out: nothing more is emitted. */
  private ended = false;
  private sourceDone = false;
  private queue?: FrameQueue;
  private upstream?: Subscription;
  private drained?: Subscription;
  /** Listen streams coalesce their change notifications while they wait; request streams coalesce progress only. */
  private readonly changeKeys: boolean;

  constructor(
    private readonly bounds: QueueBounds,
    private readonly flow: FrameFlow,
    private readonly counters: QueueCounters,
    private readonly subscriber: Subscriber<SseChunk>,
  ) {
    this.changeKeys = bounds.overflow === 'disconnect';
  }

  next(message: ChannelMessage): void {
    if (this.ended) return;
    // The common case costs no frame object: only a frame that has to wait needs its coalescing keys.
    if (!this.queue?.length && !this.flow.full) this.pass(sseTextOf(message), message.type === 'response');
    else if (!this.waiting().offer(sseFrameOf(message, this.changeKeys)))
      this.subscriber.error(new QueueOverflowError(this.bounds));
  }

  error(error: unknown): void {
    this.subscriber.error(error);
  }

  complete(): void {
    this.sourceDone = true;
    this.endIfDone();
  }

  connect(messages$: Observable<ChannelMessage>): void {
    this.upstream = messages$.subscribe(this);
  }

  /** Teardown: lets go of the messages and the drain signal, and drops what waits. */
  unsubscribe(): void {
    this.upstream?.unsubscribe();
    this.drained?.unsubscribe();
    this.queue?.clear();
    this.chunk = '';
  }

  /** The queue, made (with its drain subscription) when the first frame has to wait. */
  private waiting(): FrameQueue {
    if (!this.queue) {
      this.queue = new FrameQueue(this.bounds, this.counters);
      this.drained = this.flow.drained$.subscribe(() => this.release());
    }
    return this.queue;
  }

  /** The socket drained: what waits leaves, in order, until it is full again. */
  private release(): void {
    const queue = this.queue!;
    while (queue.length > 0 && !this.flow.full && !this.subscriber.closed) {
      const frame = queue.shift();
      this.pass(frame.data, frame.final);
    }
    this.endIfDone();
  }

  /** Adds a frame to this tick's chunk; the final one leaves at once, with the chunk. */
  private pass(data: string, final: boolean): void {
    if (final) {
      this.emit(data, true);
      return;
    }
    this.chunk += data;
    if (this.chunk.length >= MAX_CHUNK_CHARS) this.emit('', false);
    else if (!this.chunkScheduled) {
      this.chunkScheduled = true;
      process.nextTick(emitOnTick, this);
    }
  }

  /** Emits this tick's chunk, followed by `data`; a `last` chunk ends the stream's output. */
  private emit(data: string, last: boolean): void {
    if (this.ended || this.subscriber.closed) return;
    const chunk = this.chunk + data;
    this.chunk = '';
    if (last) this.ended = true;
    else if (chunk === '') return;
    this.subscriber.next({ data: chunk, last });
  }

  /** The tick after frames were added (see `emitOnTick`). */
  onTick(): void {
    this.chunkScheduled = false;
    this.emit('', false);
  }

  private endIfDone(): void {
    if (!this.sourceDone || this.queue?.length) return;
    this.emit('', true);
    this.subscriber.complete();
  }
}

/** `process.nextTick` callback shared by every stream (the stream is its argument: no closure per stream). */
function emitOnTick(stream: SseQueueStream): void {
  stream.onTick();
}

/** The frames waiting for a full socket. */
class FrameQueue {
  private readonly frames: SseFrame[] = [];
  private bytes = 0;
  /** The change notifications in `frames`, by key (listen streams only). */
  private changes?: Map<string, SseFrame>;

  constructor(
    private readonly bounds: QueueBounds,
    private readonly counters: QueueCounters,
  ) {}

  get length(): number {
    return this.frames.length;
  }

  /** Queues, coalesces or drops a frame (and counts which); false when it overflows a `disconnect` queue. */
  offer(frame: SseFrame): boolean {
    if (frame.keepAlive) return true;
    const waiting = frame.changeKey !== undefined ? this.changes?.get(frame.changeKey) : undefined;
    if (waiting) {
      // The same change notification is still waiting: it takes the newest content and keeps its place. It leaves
      // after this change happened, so the client re-reads the latest state either way.
      this.bytes += frame.data.length - waiting.data.length;
      waiting.data = frame.data;
      this.counters.coalescedFrames++;
      return true;
    }
    if (
      !frame.final &&
      (this.frames.length >= this.bounds.maxFrames || this.bytes + frame.data.length > this.bounds.maxBytes)
    ) {
      if (this.bounds.overflow === 'disconnect') {
        this.counters.overflows++;
        return false;
      }
      // Progress always gets in, replacing the waiting frame of its token (coalesced) or, failing that, the oldest
      // other notification (dropped): the newest progress value is what a late reader needs.
      const token = frame.progressToken;
      if (token !== undefined && this.dropFirst((queued) => queued.progressToken === token)) {
        this.counters.coalescedFrames++;
      } else {
        // Lost for good: this frame, or the oldest other notification a new token's progress takes the place of.
        this.counters.droppedFrames++;
        const replaced =
          token !== undefined && this.dropFirst((queued) => queued.progressToken === undefined && !queued.final);
        if (!replaced) return true;
      }
    }
    this.frames.push(frame);
    this.bytes += frame.data.length;
    if (frame.changeKey !== undefined) (this.changes ??= new Map()).set(frame.changeKey, frame);
    return true;
  }

  /** The oldest waiting frame; only called when there is one. */
  shift(): SseFrame {
    const frame = this.frames.shift()!;
    this.bytes -= frame.data.length;
    if (frame.changeKey !== undefined) this.changes?.delete(frame.changeKey);
    return frame;
  }

  clear(): void {
    this.frames.length = 0;
    this.bytes = 0;
    this.changes?.clear();
  }

  private dropFirst(matches: (queued: SseFrame) => boolean): boolean {
    const index = this.frames.findIndex(matches);
    if (index < 0) return false;
    const [dropped] = this.frames.splice(index, 1);
    this.bytes -= dropped.data.length;
    if (dropped.changeKey !== undefined) this.changes?.delete(dropped.changeKey);
    return true;
  }
}
