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
}

/**
 * The single writer of a stdio connection's output. Every message becomes one line — `JSON.stringify` escapes line
 * breaks inside strings — handed to the stream in one `write` call, so concurrent requests can never interleave
 * inside a line (T-STDIO-01), and messages leave in the order they were written.
 *
 * While the stream is full, lines wait in a queue. At the bound, a new progress notification replaces the queued one
 * of its token (progress only moves forward, so the newest value is all a late reader needs), or is dropped when
 * none is queued; every other message — responses, server→client requests, log and listen notifications — is always
 * kept (DESIGN D5: the final response is never dropped).
 */
export class StdioMessageWriter {
  private readonly queue: QueuedLine[] = [];
  private queuedBytes = 0;
  private waitingForDrain = false;
  private pendingCallbacks = 0;
  private broken = false;
  private readonly idleWaiters: (() => void)[] = [];

  /** Progress notifications dropped or coalesced because the reader was too slow. */
  droppedProgress = 0;

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
    const progressToken = progressTokenOf(message);
    if (progressToken !== undefined && (this.queue.length >= this.bounds.maxFrames || this.queuedBytes + line.length > this.bounds.maxBytes)) {
      this.droppedProgress++;
      const index = this.queue.findIndex((queued) => queued.progressToken === progressToken);
      if (index < 0) return;
      this.queuedBytes -= this.queue[index].line.length;
      this.queue.splice(index, 1);
    }
    this.queue.push({ line, progressToken });
    this.queuedBytes += line.length;
  }

  /** Resolves once everything written so far has been handed over to the stream (or the stream failed). */
  flush(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
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

function progressTokenOf(message: JsonRpcOutgoing | JsonRpcRequest): string | number | undefined {
  if (!('method' in message) || message.method !== 'notifications/progress' || 'id' in message) return undefined;
  return message.params?.progressToken as string | number | undefined;
}
