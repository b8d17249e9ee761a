import type { ServerResponse } from 'node:http';
import { Observable, type Observer, type Subscriber } from 'rxjs';
import type { FrameFlow, SseChunk } from './sse-queue.operator.js';
import { KEEP_ALIVE_FRAME } from './sse-frame.util.js';

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
} as const;

/**
 * The end of a streamed response's pipeline: commits the response to `200 text/event-stream` when created, writes
 * the chunks it observes (the last one ends the response), and tells the bounded queue in front of it when the
 * socket is full and when it drained. An error (a listen stream's queue overflowed) drops the connection.
 */
export class SseSocketWriter implements Observer<SseChunk>, FrameFlow {
  private waitingForDrain = false;
  /** The one subscriber of `drained$` (the queue, once frames had to wait). */
  private drainListener?: Subscriber<void>;

  constructor(private readonly response: ServerResponse) {
    response.writeHead(200, SSE_HEADERS);
    response.flushHeaders();
  }

  /**
   * Emits when the socket drained after a write it could not take at once. Made on demand: a stream whose frames
   * never wait never asks for it. One subscriber at a time.
   */
  get drained$(): Observable<void> {
    return new Observable<void>((subscriber) => {
      this.drainListener = subscriber;
      return () => {
        if (this.drainListener === subscriber) this.drainListener = undefined;
      };
    });
  }

  /** Whether the socket refused the last write and has not drained since. */
  get full(): boolean {
    // Our own flag: Node's `writableNeedDrain` getter costs a measurable share of a notification.
    return this.waitingForDrain;
  }

  /** Writes a chunk of frames; the last one ends the response in the same write. */
  next(chunk: SseChunk): void {
    if (this.response.destroyed || this.response.writableEnded) return;
    if (chunk.last) {
      this.response.end(chunk.data);
    } else if (!this.response.write(chunk.data)) {
      this.waitingForDrain = true;
      this.response.once('drain', () => {
        // The flag first, so the queue sees the socket writable when it is told.
        this.waitingForDrain = false;
        this.drainListener?.next();
      });
    }
  }

  /** The queue overflowed (a listen stream's slow reader): the connection closes. */
  error(): void {
    this.response.destroy();
  }

  /** The stream ended without a last chunk (the client went away first): nothing more to write. */
  complete(): void {
    if (!this.response.destroyed && !this.response.writableEnded) this.response.end();
  }

  /** A keep-alive comment before the pipeline exists (a standalone stream still silent), unless the socket is full. */
  keepAlive(): void {
    if (!this.full) this.next({ data: KEEP_ALIVE_FRAME.data, last: false });
  }

  /** The final response of a client that reads SSE only, with nothing streamed before it. */
  end(data: string): void {
    this.next({ data, last: true });
  }
}
