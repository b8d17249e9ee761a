import { Logger } from '@nestjs/common';
import type { JsonRpcOutgoing, JsonRpcRequest } from '../../protocol/json-rpc.interface.js';
import type { StdioOutput } from './stdio-output.interface.js';

/** Bounds of what waits in memory while the reader of stdout is slower than the server. */
export interface StdioQueueBounds {
  maxFrames: number;
  maxBytes: number;
}

interface QueuedLine {
  line: string;
  /** Set on `notifications/progress`, the only messages that may be coalesced. */
  progressToken?: string | number;
  /** Notifications (progress, logs, change notifications) may be dropped at the bound; responses and requests never. */
  droppable: boolean;
}

/**
 * The single writer of a stdio connection's output. Every message becomes one line — `JSON.stringify` escapes line
 * breaks inside strings — handed to the stream in one `write` call, so concurrent requests can never interleave
 * inside a line (spec 2026-07-28: basic/transports/stdio), and messages leave in the order they were written.
 *
 * While the stream is full, lines wait in a queue bounded like an HTTP response's (`streaming.maxQueuedFrames`,
 * `streaming.maxQueuedBytes`). At the bound, a new progress notification replaces the queued one of its token
 * (progress only moves forward, so the newest value is all a late reader needs) or, failing that, the oldest queued
 * other notification; other notifications — logs, list and resource changes — are dropped, counted, with one warning
 * on stderr. Responses and server→client requests are always kept (ADR 0008: the final response is never dropped;
 * a dropped request would leave its handler waiting): they are bounded by the calls the client itself started.
 */
export class StdioMessageWriter {
  private readonly logger = new Logger('McpStdio');
  private readonly queue: QueuedLine[] = [];
  private queuedBytes = 0;
  private waitingForDrain = false;
  private pendingCallbacks = 0;
  private broken = false;
  private warned = false;
  private readonly idleWaiters: (() => void)[] = [];

  /** Progress notifications dropped or coalesced because the reader was too slow. */
  droppedProgress = 0;
  /** Other notifications (logs, change notifications) dropped because the reader was too slow. */
  droppedNotifications = 0;

  constructor(
    private readonly output: StdioOutput,
    private readonly bounds: StdioQueueBounds,
    private readonly onBroken: (error: Error) => void,
  ) {
    output.on('error', (error) => this.fail(error));
  }

  /** Whether the output failed (the reader went away); later messages are discarded. */
  get isBroken(): boolean {
    return this.broken;
  }

  write(message: JsonRpcOutgoing | JsonRpcRequest): void {
    if (this.broken) return;
    const line = `${JSON.stringify(message)}\n`;
    if (!this.waitingForDrain) {
      this.send(line);
      return;
    }
    const item: QueuedLine = { line, progressToken: progressTokenOf(message), droppable: isNotification(message) };
    if (
      item.droppable &&
      (this.queue.length >= this.bounds.maxFrames || this.queuedBytes + line.length > this.bounds.maxBytes)
    ) {
      // Progress always gets in, in place of the queued progress of its token or, failing that, of the oldest other
      // notification; anything else is the line lost.
      const replaced =
        item.progressToken === undefined
          ? undefined
          : (this.takeQueued((queued) => queued.progressToken === item.progressToken) ??
            this.takeQueued((queued) => queued.droppable && queued.progressToken === undefined));
      this.countLost(replaced ?? item);
      if (!replaced) return;
    }
    this.queue.push(item);
    this.queuedBytes += line.length;
  }

  /** How many lines wait for the stream, and their size in characters. */
  get queued(): { lines: number; chars: number } {
    return { lines: this.queue.length, chars: this.queuedBytes };
  }

  /** Resolves once everything written so far has been handed over to the stream (or the stream failed). */
  flush(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Removes and returns the first queued line that matches. */
  private takeQueued(matches: (queued: QueuedLine) => boolean): QueuedLine | undefined {
    const index = this.queue.findIndex(matches);
    if (index < 0) return undefined;
    const [taken] = this.queue.splice(index, 1);
    this.queuedBytes -= taken.line.length;
    return taken;
  }

  /** Counts a line lost to the bound; the first loss of the connection is reported once on stderr. */
  private countLost(item: QueuedLine): void {
    if (item.progressToken !== undefined) this.droppedProgress++;
    else this.droppedNotifications++;
    if (this.warned) return;
    this.warned = true;
    this.logger.warn(
      `The client is not reading stdout fast enough: more than ${this.bounds.maxFrames} lines / ${this.bounds.maxBytes} bytes ` +
        'wait; notifications are dropped (progress coalesced to the newest value) until it catches up. Responses are ' +
        'never dropped. Raise streaming.maxQueuedFrames / maxQueuedBytes if the client is only bursty.',
    );
  }

  private send(line: string): void {
    this.pendingCallbacks++;
    const accepted = this.output.write(line, (error) => {
      this.pendingCallbacks--;
      if (error) this.fail(error);
      else this.notifyIfIdle();
    });
    if (!accepted && !this.broken) {
      this.waitingForDrain = true;
      this.output.once('drain', () => this.drain());
    }
  }

  private drain(): void {
    this.waitingForDrain = false;
    while (this.queue.length > 0 && !this.waitingForDrain && !this.broken) {
      const item = this.queue.shift()!;
      this.queuedBytes -= item.line.length;
      this.send(item.line);
    }
    this.notifyIfIdle();
  }

  private fail(error: Error): void {
    if (this.broken) return;
    this.broken = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.notifyIfIdle();
    this.onBroken(error);
  }

  private isIdle(): boolean {
    return this.broken || (this.queue.length === 0 && !this.waitingForDrain && this.pendingCallbacks === 0);
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

/** A notification: a method and no id (responses have no method, server→client requests have an id). */
function isNotification(message: JsonRpcOutgoing | JsonRpcRequest): boolean {
  return 'method' in message && !('id' in message);
}

function progressTokenOf(message: JsonRpcOutgoing | JsonRpcRequest): string | number | undefined {
  if (!('method' in message) || message.method !== 'notifications/progress' || 'id' in message) return undefined;
  return message.params?.progressToken as string | number | undefined;
}
