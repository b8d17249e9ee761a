import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { StdioMessageWriter } from './stdio-message.writer.js';

/** An output that accepts `capacity` writes before it reports back-pressure, until `drain()` is called. */
class FakeOutput extends EventEmitter {
  readonly chunks: string[] = [];
  private readonly callbacks: ((error?: Error | null) => void)[] = [];
  constructor(private capacity = Number.POSITIVE_INFINITY) {
    super();
  }
  write(chunk: string, callback?: (error?: Error | null) => void): boolean {
    this.chunks.push(chunk);
    if (callback) this.callbacks.push(callback);
    return --this.capacity > 0;
  }
  drain(capacity = Number.POSITIVE_INFINITY): void {
    this.capacity = capacity;
    for (const callback of this.callbacks.splice(0)) callback();
    this.emit('drain');
  }
  flushCallbacks(): void {
    for (const callback of this.callbacks.splice(0)) callback();
  }
}

const progress = (token: string | number, value: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: token, progress: value } });

describe('StdioMessageWriter', () => {
  it('writes each message as one line in one write call, line breaks in strings escaped', () => {
    const output = new FakeOutput();
    const writer = new StdioMessageWriter(output, { maxFrames: 8, maxBytes: 1024 }, () => {});
    writer.write({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb\r\u2028' } });
    writer.write(progress('t', 1));
    expect(output.chunks).toHaveLength(2);
    for (const chunk of output.chunks) {
      expect(chunk.endsWith('\n')).toBe(true);
      expect(chunk.slice(0, -1)).not.toMatch(/[\n\r]/);
    }
    expect(JSON.parse(output.chunks[0]).result.text).toBe('a\nb\r\u2028');
  });

  it('queues while the stream is full and sends in order after drain', () => {
    const output = new FakeOutput(1);
    const writer = new StdioMessageWriter(output, { maxFrames: 8, maxBytes: 4096 }, () => {});
    writer.write({ jsonrpc: '2.0', id: 1, result: {} });
    writer.write(progress('a', 1));
    writer.write({ jsonrpc: '2.0', id: 2, result: {} });
    expect(output.chunks).toHaveLength(1);
    output.drain();
    expect(output.chunks.map((chunk) => JSON.parse(chunk).id ?? JSON.parse(chunk).params.progress)).toEqual([1, 1, 2]);
  });

  it('at the bound, replaces the queued progress of the same token and never drops a response', () => {
    const output = new FakeOutput(1);
    const writer = new StdioMessageWriter(output, { maxFrames: 2, maxBytes: 4096 }, () => {});
    writer.write({ jsonrpc: '2.0', id: 0, result: {} }); // fills the stream
    writer.write(progress('a', 1));
    writer.write(progress('b', 1)); // queue full from here on
    writer.write(progress('a', 2)); // replaces a:1
    writer.write(progress('c', 1)); // nothing of c queued: dropped
    writer.write({ jsonrpc: '2.0', id: 9, result: {} }); // always queued
    output.drain();
    const sent = output.chunks.slice(1).map((chunk) => JSON.parse(chunk));
    expect(sent.map((message) => (message.id !== undefined ? `#${message.id}` : `${message.params.progressToken}:${message.params.progress}`))).toEqual(['b:1', 'a:2', '#9']);
    expect(writer.droppedProgress).toBe(2);
  });

  it('flush resolves once every write was handed over', async () => {
    const output = new FakeOutput(1);
    const writer = new StdioMessageWriter(output, { maxFrames: 8, maxBytes: 4096 }, () => {});
    writer.write({ jsonrpc: '2.0', id: 1, result: {} });
    writer.write({ jsonrpc: '2.0', id: 2, result: {} });
    let flushed = false;
    const flushing = writer.flush().then(() => (flushed = true));
    await Promise.resolve();
    expect(flushed).toBe(false);
    output.drain();
    output.flushCallbacks();
    await flushing;
    expect(output.chunks).toHaveLength(2);
  });

  it('a failing stream breaks the writer once, drops the queue and releases flush', async () => {
    const output = new FakeOutput(1);
    const failures: Error[] = [];
    const writer = new StdioMessageWriter(output, { maxFrames: 8, maxBytes: 4096 }, (error) => failures.push(error));
    writer.write({ jsonrpc: '2.0', id: 1, result: {} });
    writer.write({ jsonrpc: '2.0', id: 2, result: {} });
    output.emit('error', new Error('EPIPE'));
    output.emit('error', new Error('EPIPE again'));
    await writer.flush();
    writer.write({ jsonrpc: '2.0', id: 3, result: {} });
    expect(writer.isBroken).toBe(true);
    expect(failures.map((error) => error.message)).toEqual(['EPIPE']);
    expect(output.chunks).toHaveLength(1);
  });
});
