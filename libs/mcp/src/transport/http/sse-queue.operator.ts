import { Observable, type OperatorFunction } from 'rxjs';
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

/** Where the queue counts what it dropped or coalesced. */
export interface QueueCounters {
  droppedFrames: number;
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
export function sseQueue(bounds: QueueBounds, flow: FrameFlow, counters: QueueCounters = { droppedFrames: 0 }): OperatorFunction<ChannelMessage, SseChunk> {
  // Listen streams coalesce their change notifications while they wait; request streams coalesce progress only.
  const changeKeys = bounds.overflow === 'disconnect';
  return (messages$) =>
    new Observable<SseChunk>((subscriber) => {
      const queue = new FrameQueue(bounds, counters);
      /** Frames of the current tick, emitted on the next one. */
      let chunk = '';
      let chunkScheduled = false;
      let ended = false;
      let sourceDone = false;

      const emitChunk = () => {
        chunkScheduled = false;
        if (chunk === '' || ended || subscriber.closed) return;
        const data = chunk;
        chunk = '';
        subscriber.next({ data, last: false });
      };
      /** Adds a frame to this tick's chunk; the final one leaves at once, with the chunk. */
      const pass = (data: string, final: boolean) => {
        if (final) {
          ended = true;
          const last = chunk + data;
          chunk = '';
          subscriber.next({ data: last, last: true });
          return;
        }
        chunk += data;
        if (chunk.length >= MAX_CHUNK_CHARS) emitChunk();
        else if (!chunkScheduled) {
          chunkScheduled = true;
          process.nextTick(emitChunk);
        }
      };
      const endIfDone = () => {
        if (!sourceDone || queue.length > 0) return;
        if (!ended) {
          ended = true;
          subscriber.next({ data: chunk, last: true });
          chunk = '';
        }
        subscriber.complete();
      };

      const drained = flow.drained$.subscribe(() => {
        while (queue.length > 0 && !flow.full && !subscriber.closed) {
          const frame = queue.shift();
          pass(frame.data, frame.final);
        }
        endIfDone();
      });
      const upstream = messages$.subscribe({
        next(message) {
          if (ended) return;
          // The common case costs no frame object: only a frame that has to wait needs its coalescing keys.
          if (queue.length === 0 && !flow.full) pass(sseTextOf(message), message.type === 'response');
          else if (!queue.offer(sseFrameOf(message, changeKeys))) subscriber.error(new QueueOverflowError(bounds));
        },
        error: (error: unknown) => subscriber.error(error),
        complete() {
          sourceDone = true;
          endIfDone();
        },
      });
      return () => {
        upstream.unsubscribe();
        drained.unsubscribe();
        queue.clear();
        chunk = '';
      };
    });
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

  /** Queues, coalesces or drops a frame; false when it overflows a `disconnect` queue. */
  offer(frame: SseFrame): boolean {
    if (frame.keepAlive) return true;
    const waiting = frame.changeKey !== undefined ? this.changes?.get(frame.changeKey) : undefined;
    if (waiting) {
      // The same change notification is still waiting: it takes the newest content and keeps its place. It leaves
      // after this change happened, so the client re-reads the latest state either way.
      this.bytes += frame.data.length - waiting.data.length;
      waiting.data = frame.data;
      this.counters.droppedFrames++;
      return true;
    }
    if (!frame.final && (this.frames.length >= this.bounds.maxFrames || this.bytes + frame.data.length > this.bounds.maxBytes)) {
      this.counters.droppedFrames++;
      if (this.bounds.overflow === 'disconnect') return false;
      // Progress always gets in, replacing the waiting frame of its token or, failing that, the oldest other
      // notification: the newest progress value is what a late reader needs.
      const replaced =
        frame.progressToken !== undefined &&
        (this.dropFirst((queued) => queued.progressToken === frame.progressToken) || this.dropFirst((queued) => queued.progressToken === undefined && !queued.final));
      if (!replaced) return true;
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
