import { ConsoleLogger, Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StdioMessageWriter } from './stdio-message.writer.js';
import { RecordingLogger } from '../../../../../test/support/recording.logger.js';

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

const progress = (token: string | number, value: number) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/progress',
  params: { progressToken: token, progress: value },
});
const log = (data: string) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/message',
  params: { level: 'info', data },
});

/** What one line of the output was: `#id` for a response, `?id` for a server→client request, else `method:detail`. */
function labelOf(chunk: string): string {
  const message = JSON.parse(chunk);
  if (message.method === undefined) return `#${message.id}`;
  if (message.id !== undefined) return `?${message.id}`;
  if (message.method === 'notifications/progress') return `${message.params.progressToken}:${message.params.progress}`;
  return `log:${message.params.data}`;
}

/** Keeps the warnings the writer logs. */
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
    expect(
      sent.map((message) =>
        message.id !== undefined ? `#${message.id}` : `${message.params.progressToken}:${message.params.progress}`,
      ),
    ).toEqual(['b:1', 'a:2', '#9']);
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

  describe('at the bound, like an HTTP response (issue #13, item 10c)', () => {
    let logger: RecordingLogger;
    beforeEach(() => {
      logger = new RecordingLogger();
      Logger.overrideLogger(logger);
    });
    afterEach(() => Logger.overrideLogger(new ConsoleLogger()));

    it('drops log and change notifications (counted, one warning), keeps responses and server→client requests', () => {
      const output = new FakeOutput(1);
      const writer = new StdioMessageWriter(output, { maxFrames: 2, maxBytes: 4096 }, () => {});
      writer.write({ jsonrpc: '2.0', id: 0, result: {} }); // fills the stream
      writer.write(log('one'));
      writer.write(log('two')); // queue full from here on
      writer.write(log('three')); // dropped
      writer.write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }); // dropped
      writer.write({ jsonrpc: '2.0', id: 'srv-1', method: 'elicitation/create', params: {} }); // kept
      writer.write({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'late' } }); // kept
      writer.write(log('four')); // dropped
      expect(writer.droppedNotifications).toBe(3);
      expect(writer.droppedProgress).toBe(0);
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toMatch(
        /^The client is not reading stdout fast enough: more than 2 lines \/ 4096 bytes wait; notifications are dropped/,
      );
      output.drain();
      expect(output.chunks.slice(1).map(labelOf)).toEqual(['log:one', 'log:two', '?srv-1', '#7']);
    });

    it('progress takes the place of the oldest queued log when none of its token is queued', () => {
      const output = new FakeOutput(1);
      const writer = new StdioMessageWriter(output, { maxFrames: 2, maxBytes: 4096 }, () => {});
      writer.write({ jsonrpc: '2.0', id: 0, result: {} });
      writer.write(log('one'));
      writer.write(log('two'));
      writer.write(progress('p', 1)); // replaces log:one
      writer.write(progress('p', 2)); // replaces p:1
      writer.write(progress('q', 1)); // replaces log:two
      writer.write(progress('r', 1)); // nothing left to replace: dropped
      expect(writer.droppedNotifications).toBe(2);
      expect(writer.droppedProgress).toBe(2);
      output.drain();
      expect(output.chunks.slice(1).map(labelOf)).toEqual(['p:2', 'q:1']);
      expect(logger.warnings).toHaveLength(1);
    });

    it('the byte bound applies as well as the frame bound', () => {
      const output = new FakeOutput(1);
      const writer = new StdioMessageWriter(output, { maxFrames: 1_000, maxBytes: 1_000 }, () => {});
      writer.write({ jsonrpc: '2.0', id: 0, result: {} });
      for (let index = 0; index < 100; index++) writer.write(log(`${index}:${'x'.repeat(200)}`));
      expect(writer.queued.chars).toBeLessThanOrEqual(1_000);
      expect(writer.queued.lines).toBeLessThan(10);
      expect(writer.droppedNotifications).toBe(100 - writer.queued.lines);
    });

    it('a real stream nobody reads: 20,000 log lines keep the queue within its bounds; every response arrives once read', async () => {
      const output = new PassThrough({ highWaterMark: 16 * 1024 });
      const writer = new StdioMessageWriter(output, { maxFrames: 128, maxBytes: 64 * 1024 }, () => {});
      const padding = 'y'.repeat(1_000);
      let largest = 0;
      for (let index = 0; index < 20_000; index++) {
        writer.write(log(`${index}:${padding}`));
        if (index % 1_000 === 0) writer.write({ jsonrpc: '2.0', id: index, result: {} });
        largest = Math.max(largest, writer.queued.chars);
      }
      // 20 MB were offered; what waits is the bound plus the responses (which are never dropped).
      expect(largest).toBeLessThanOrEqual(64 * 1024 + 20 * 64);
      expect(writer.queued.lines).toBeLessThanOrEqual(128 + 20);
      expect(writer.droppedNotifications).toBeGreaterThan(19_000);
      expect(logger.warnings).toHaveLength(1);
      // The host starts reading: every response comes out, in order.
      let text = '';
      output.setEncoding('utf8');
      output.on('data', (chunk: string) => (text += chunk));
      await writer.flush();
      const ids = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((message) => message.method === undefined)
        .map((message) => message.id);
      expect(ids).toEqual(Array.from({ length: 20 }, (_, index) => index * 1_000));
    });
  });
});
