import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ChannelMessage } from '../../protocol/response-channel.js';
import { type FrameFlow, type QueueBounds, QueueOverflowError, type SseChunk, sseQueue } from './sse-queue.operator.js';

/** A socket whose fullness the test sets, and which drains when told. */
class TestFlow implements FrameFlow {
  full = false;
  readonly drained$ = new Subject<void>();

  drain(): void {
    this.full = false;
    this.drained$.next();
  }
}

const notification = (method: string, params: Record<string, unknown>): ChannelMessage => ({
  type: 'notification',
  message: { jsonrpc: '2.0', method, params },
});
const progress = (token: string | number, value: number): ChannelMessage =>
  notification('notifications/progress', { progressToken: token, progress: value });
const log = (text: string): ChannelMessage => notification('notifications/message', { level: 'info', data: text });
const final = (): ChannelMessage => ({
  type: 'response',
  message: { jsonrpc: '2.0', id: 1, result: {} },
  httpStatus: 200,
});
const updated = (uri: string, version: number): ChannelMessage =>
  notification('notifications/resources/updated', { uri, version });
const listChanged = (version: number): ChannelMessage => notification('notifications/tools/list_changed', { version });
const keepAlive: ChannelMessage = { type: 'keepalive' };
/** A notification of about 6 KiB: three of them fill a chunk. */
const big = (name: string): ChannelMessage =>
  notification('notifications/message', { level: 'info', data: name, padding: 'x'.repeat(6 * 1024) });

/** A short name for a frame that left, to compare sequences. */
function describeFrame(frame: string): string {
  if (frame.startsWith(':')) return ':';
  const message = JSON.parse(frame.split('data: ')[1]) as {
    id?: number;
    method?: string;
    params?: Record<string, unknown>;
  };
  if (message.id !== undefined) return 'final';
  const params = message.params ?? {};
  switch (message.method) {
    case 'notifications/progress':
      return `progress ${params.progressToken} ${params.progress}`;
    case 'notifications/message':
      return params.padding ? String(params.data) : `log ${params.data}`;
    case 'notifications/resources/updated':
      return `updated ${params.uri} v${params.version}`;
    default:
      return `tools changed v${params.version}`;
  }
}

const tick = () => new Promise<void>((resolve) => process.nextTick(resolve));

/** Runs frames through the operator: the chunks that left, whether it completed or failed, and the drop count. */
function harness(bounds: QueueBounds, onChunk: (chunk: SseChunk, flow: TestFlow) => void = () => undefined) {
  const flow = new TestFlow();
  const source = new Subject<ChannelMessage>();
  const counters = { coalescedFrames: 0, droppedFrames: 0, overflows: 0 };
  const chunks: SseChunk[] = [];
  const result: { completed: boolean; error?: unknown } = { completed: false };
  const subscription = source.pipe(sseQueue(bounds, flow, counters)).subscribe({
    next: (chunk) => {
      chunks.push(chunk);
      onChunk(chunk, flow);
    },
    error: (error: unknown) => (result.error = error),
    complete: () => (result.completed = true),
  });
  /** The frames that left so far, in order (keep-alives shown as `:`). */
  const frames = () =>
    chunks
      .map((chunk) => chunk.data)
      .join('')
      .split('\n\n')
      .filter(Boolean)
      .map(describeFrame);
  return { flow, source, counters, chunks, frames, result, subscription };
}

const coalesce: QueueBounds = { maxFrames: 3, maxBytes: 1_000_000, overflow: 'coalesce' };
const disconnect: QueueBounds = { maxFrames: 3, maxBytes: 1_000_000, overflow: 'disconnect' };

describe('sseQueue', () => {
  it('passes frames while the socket can take them, joined into one chunk per tick; the final leaves at once, last', async () => {
    const { source, chunks, frames, result, counters } = harness(coalesce);
    for (let value = 1; value <= 10; value++) source.next(progress('t', value));
    expect(chunks).toHaveLength(0);
    await tick();
    expect(chunks).toHaveLength(1);
    expect(chunks[0].last).toBe(false);
    expect(frames()).toEqual(Array.from({ length: 10 }, (_, index) => `progress t ${index + 1}`));
    source.next(progress('t', 11));
    source.next(final());
    source.complete();
    // The final takes what the tick still holds with it, in the same chunk.
    expect(chunks).toHaveLength(2);
    expect(chunks[1].last).toBe(true);
    expect(frames().slice(10)).toEqual(['progress t 11', 'final']);
    expect(frames()).toHaveLength(12);
    expect(result.completed).toBe(true);
    expect(counters.droppedFrames).toBe(0);
    await tick();
    expect(chunks).toHaveLength(2);
  });

  it('a stream whose frames never wait subscribes to nothing but its messages (an idle listen stream holds little)', async () => {
    const { flow, source, frames } = harness(coalesce);
    source.next(log('a'));
    await tick();
    expect(frames()).toEqual(['log a']);
    expect(flow.drained$.observed).toBe(false);
    flow.full = true;
    source.next(log('b'));
    expect(flow.drained$.observed).toBe(true);
  });

  it('a tick that reaches 16 KiB leaves at once, without waiting for the next tick', () => {
    const { source, chunks } = harness(coalesce);
    source.next(big('a'));
    source.next(big('b'));
    expect(chunks).toHaveLength(0);
    source.next(big('c'));
    expect(chunks).toHaveLength(1);
    expect(chunks[0].data.length).toBeGreaterThanOrEqual(16 * 1024);
  });

  it('holds frames while the socket is full and releases them in order when it drains, until it is full again', async () => {
    // Every chunk written fills the socket.
    const { flow, source, frames } = harness(coalesce, (_chunk, flow) => (flow.full = true));
    flow.full = true;
    source.next(big('a'));
    source.next(big('b'));
    source.next(big('c'));
    await tick();
    expect(frames()).toEqual([]);
    flow.drain();
    // a, b and c make 18 KiB: they leave together, and the socket is full again.
    expect(frames()).toEqual(['a', 'b', 'c']);
    source.next(log('d'));
    await tick();
    expect(frames()).toHaveLength(3);
    flow.drain();
    await tick();
    expect(frames()).toEqual(['a', 'b', 'c', 'log d']);
  });

  it('stops releasing as soon as a chunk fills the socket again; the rest waits for the next drain', () => {
    const { flow, source, frames } = harness({ ...coalesce, maxFrames: 10 }, (_chunk, flow) => (flow.full = true));
    flow.full = true;
    for (const name of ['a', 'b', 'c', 'd']) source.next(big(name));
    flow.drain();
    expect(frames()).toEqual(['a', 'b', 'c']);
    flow.drain();
    expect(frames()).toEqual(['a', 'b', 'c']); // d is in the next tick's chunk
  });

  it('coalesce: at the frame bound, a progress frame replaces the waiting one of its token; other notifications are dropped', async () => {
    const { flow, source, frames, counters } = harness(coalesce);
    flow.full = true;
    source.next(progress('t', 1));
    source.next(log('a'));
    source.next(progress('u', 1));
    // Full (3 frames): the newest progress of 't' replaces its waiting frame and goes to the end.
    source.next(progress('t', 2));
    source.next(progress('t', 3));
    source.next(log('dropped'));
    flow.drain();
    await tick();
    expect(frames()).toEqual(['log a', 'progress u 1', 'progress t 3']);
    // Two progress frames of 't' replaced by newer ones; one log lost.
    expect(counters).toEqual({ coalescedFrames: 2, droppedFrames: 1, overflows: 0 });
  });

  it('coalesce: a progress frame of a new token replaces the oldest other notification, never a progress frame', async () => {
    const { flow, source, frames } = harness(coalesce);
    flow.full = true;
    source.next(progress('t', 1));
    source.next(log('a'));
    source.next(log('b'));
    source.next(progress('v', 1));
    flow.drain();
    await tick();
    expect(frames()).toEqual(['progress t 1', 'log b', 'progress v 1']);
  });

  it('coalesce: the byte bound counts like the frame bound', async () => {
    const { flow, source, frames, counters } = harness({ maxFrames: 100, maxBytes: 200, overflow: 'coalesce' });
    flow.full = true;
    source.next(log('a')); // about 110 bytes
    source.next(log('b')); // would make about 220 > 200: dropped
    source.next(progress('t', 1)); // about 120 bytes: does not fit either, and replaces the oldest other notification
    flow.drain();
    await tick();
    expect(frames()).toEqual(['progress t 1']);
    // Both logs lost (b at the bound, a for the progress of a new token): nothing was replaced by its own kind.
    expect(counters).toEqual({ coalescedFrames: 0, droppedFrames: 2, overflows: 0 });
  });

  it('the final response is never dropped nor reordered, whatever the bounds', () => {
    for (const bounds of [coalesce, disconnect, { maxFrames: 1, maxBytes: 1, overflow: 'coalesce' } as QueueBounds]) {
      const { flow, source, frames, chunks, result } = harness(bounds);
      flow.full = true;
      source.next(log('a'));
      // A `disconnect` queue is filled to its bound (more would end it); a `coalesce` one far past it.
      const progressFrames = bounds.overflow === 'disconnect' ? bounds.maxFrames - 1 : 50;
      for (let value = 1; value <= progressFrames; value++) source.next(progress('t', value));
      source.next(final());
      source.complete();
      expect(result.error).toBeUndefined();
      expect(result.completed).toBe(false); // what waits still has to leave
      flow.drain();
      expect(frames().at(-1)).toBe('final');
      expect(frames().filter((frame) => frame === 'final')).toHaveLength(1);
      expect(chunks.at(-1)?.last).toBe(true);
      expect(result.completed).toBe(true);
    }
  });

  it('disconnect: a waiting change notification takes the newest content and keeps its place, at any length', async () => {
    const { flow, source, frames, result, counters } = harness(disconnect);
    flow.full = true;
    source.next(updated('file:///a', 1));
    source.next(listChanged(1));
    source.next(updated('file:///b', 1));
    for (let version = 2; version <= 100; version++) {
      source.next(updated('file:///a', version));
      source.next(listChanged(version));
      source.next(updated('file:///b', version));
    }
    expect(result.error).toBeUndefined();
    flow.drain();
    await tick();
    expect(frames()).toEqual(['updated file:///a v100', 'tools changed v100', 'updated file:///b v100']);
    expect(counters).toEqual({ coalescedFrames: 297, droppedFrames: 0, overflows: 0 });
  });

  it('disconnect: a frame that neither coalesces nor fits ends the stream with QueueOverflowError', async () => {
    const { flow, source, frames, result, counters } = harness(disconnect);
    flow.full = true;
    source.next(updated('file:///a', 1));
    source.next(updated('file:///b', 1));
    source.next(updated('file:///c', 1));
    source.next(updated('file:///d', 1));
    expect(result.error).toBeInstanceOf(QueueOverflowError);
    expect((result.error as Error).message).toMatch(/reads too slowly/);
    expect(counters).toEqual({ coalescedFrames: 0, droppedFrames: 0, overflows: 1 });
    expect(source.observed).toBe(false); // the operator let go of its source
    flow.drain();
    await tick();
    expect(frames()).toEqual([]);
  });

  it('keep-alives pass while the socket is free and are dropped, uncounted, while it is full', async () => {
    const { flow, source, frames, counters } = harness(coalesce);
    source.next(keepAlive);
    await tick();
    flow.full = true;
    source.next(keepAlive);
    source.next(log('a'));
    source.next(keepAlive);
    flow.drain();
    await tick();
    expect(frames()).toEqual([':', 'log a']);
    expect(counters.droppedFrames).toBe(0);
  });

  it('a source that completes without a final (a standalone stream that closed): what waits leaves, in a last chunk', async () => {
    const { flow, source, frames, chunks, result } = harness(coalesce);
    source.next(log('a'));
    flow.full = true;
    source.next(log('b'));
    source.complete();
    expect(result.completed).toBe(false);
    flow.drain();
    expect(frames()).toEqual(['log a', 'log b']);
    expect(chunks.at(-1)?.last).toBe(true);
    expect(result.completed).toBe(true);
    await tick();
    expect(frames()).toEqual(['log a', 'log b']);
  });

  it('unsubscribing drops what waits and lets go of the source and the drain signal', async () => {
    const { flow, source, chunks, subscription } = harness(coalesce);
    source.next(log('pending in this tick'));
    flow.full = true;
    source.next(log('waiting'));
    subscription.unsubscribe();
    expect(source.observed).toBe(false);
    expect(flow.drained$.observed).toBe(false);
    flow.drain();
    await tick();
    expect(chunks).toEqual([]);
  });
});
