import type { ServerResponse } from 'node:http';
import type { CallCancellation } from '../../protocol/call-cancellation.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../protocol/json-rpc.interface.js';
import type { ChannelMessage, ChannelSink, ResponseChannel } from '../../protocol/response-channel.js';

/** What the client's Accept header allows. */
export interface AcceptedMediaTypes {
  json: boolean;
  sse: boolean;
}

/** Bounds of the queue kept for a client that reads slower than the handler writes. */
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

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
} as const;

/**
 * Writes one JSON body with its status. A refusal (429, 503) whose JSON-RPC error carries `data.retryAfterSeconds`
 * also gets it as `Retry-After`.
 */
export function writeJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const payload = JSON.stringify(body);
  const retryAfter = status === 429 || status === 503 ? retryAfterOf(body) : undefined;
  response.writeHead(status, {
    ...(retryAfter !== undefined && { 'Retry-After': retryAfter }),
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
  });
  response.end(payload);
}

function retryAfterOf(body: unknown): string | undefined {
  const seconds = (body as { error?: { data?: { retryAfterSeconds?: unknown } } } | undefined)?.error?.data?.retryAfterSeconds;
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 0 ? String(seconds) : undefined;
}

/** Writes a status with no body (202 for notifications, 405 for other verbs). */
export function writeEmpty(response: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, headers);
  response.end();
}

interface QueuedFrame {
  data: string;
  /** The progress token, for frames that may be coalesced. */
  progressToken?: string | number;
  /** A listen stream's change notification, keyed by method (and URI): a newer one with the same key replaces it. */
  changeKey?: string;
  final: boolean;
}

/** Frames of one tick are written together, in pieces of about one socket high-water mark (16 KiB). */
const MAX_BATCH_CHARS = 16 * 1024;

/**
 * Streams a request's channel to the HTTP response (DESIGN D2, D5). Nothing is committed until the first message:
 * a final response that comes first goes out as one `application/json` body with its own status; a notification
 * that comes first upgrades the response to `text/event-stream`, and everything after it is an SSE frame, the final
 * response last.
 *
 * Frames produced in the same tick (a handler emitting in a loop) leave in one `write` on the next tick, one
 * HTTP chunk and one socket write instead of one each. While the socket is full, frames wait in a bounded queue. At
 * the bound, a new progress frame replaces the queued one of the same token (progress only moves forward, so the
 * newest value is all a late reader needs) and other notifications are dropped; the final response is always
 * queued, never dropped or reordered. A listen stream instead coalesces its change notifications while they wait
 * (one per list, one per updated URI), so a slow reader holds a bounded queue and still learns of every change;
 * only what cannot be coalesced disconnects it at the bound.
 *
 * The writer is also the one place that notices a client going away: the response closing before it finished
 * abandons the channel and cancels the call (spec §4.5).
 */
export class ResponseWriter implements ChannelSink {
  private streaming = false;
  private readonly queue: QueuedFrame[] = [];
  private queuedBytes = 0;
  /** The change notifications in `queue`, by key (listen streams only). */
  private queuedChanges?: Map<string, QueuedFrame>;
  private waitingForDrain = false;
  /** Frames of the current tick, written on the next one. */
  private batch = '';
  private batchScheduled = false;
  private readonly disconnect: () => void;

  /** Notifications dropped or coalesced because the client read too slowly. */
  droppedFrames = 0;

  constructor(
    private readonly channel: ResponseChannel,
    private readonly response: ServerResponse,
    private readonly accepted: AcceptedMediaTypes,
    private readonly bounds: QueueBounds,
    /** Cancelled when the client goes away before the response ended. */
    private readonly cancellation?: CallCancellation,
  ) {
    this.disconnect = channel.connect(this);
    response.once('close', () => this.closed());
  }

  /** @internal The channel's next message. */
  next(message: ChannelMessage): void {
    if (this.response.destroyed || this.response.writableEnded) return;
    if (message.type === 'keepalive') {
      if (this.streaming && !this.waitingForDrain) this.append(': keep-alive\n\n');
      return;
    }
    if (message.type === 'notification') {
      // A client that cannot read SSE only gets the final response.
      if (!this.accepted.sse) return;
      this.startStream();
      const changeKey = this.bounds.overflow === 'disconnect' ? changeKeyOf(message.message) : undefined;
      this.enqueue({ data: frame(message.json ?? JSON.stringify(message.message)), progressToken: progressTokenOf(message.message), changeKey, final: false });
      return;
    }
    // An error before any notification keeps its HTTP status even for a client that only accepts SSE.
    if (!this.streaming && (this.accepted.json || message.httpStatus !== 200)) {
      writeJson(this.response, message.httpStatus, message.message);
      return;
    }
    this.startStream();
    this.enqueue({ data: frame(JSON.stringify(message.message)), final: true });
  }

  /** @internal The channel ended; a stream that ends without a final response (a standalone stream) ends here. */
  complete(): void {
    if (this.streaming && !this.response.writableEnded && !this.waitingForDrain) this.endWith('');
  }

  private closed(): void {
    this.disconnect();
    this.queue.length = 0;
    this.queuedChanges?.clear();
    this.batch = '';
    if (!this.response.writableFinished) {
      this.channel.abandon();
      this.cancellation?.abort(new Error('The client disconnected'));
    }
  }

  private enqueue(item: QueuedFrame): void {
    if (!this.waitingForDrain) {
      this.send(item);
      return;
    }
    const waiting = item.changeKey !== undefined ? this.queuedChanges?.get(item.changeKey) : undefined;
    if (waiting) {
      // The same change notification is still waiting: it takes the newest content and keeps its place. It leaves
      // after this change happened, so the client re-reads the latest state either way.
      this.queuedBytes += item.data.length - waiting.data.length;
      waiting.data = item.data;
      this.droppedFrames++;
      return;
    }
    if (!item.final && (this.queue.length >= this.bounds.maxFrames || this.queuedBytes + item.data.length > this.bounds.maxBytes)) {
      if (this.bounds.overflow === 'disconnect') {
        this.droppedFrames++;
        this.response.destroy();
        return;
      }
      // Progress always gets in, replacing the queued frame of its token or, failing that, the oldest other
      // notification: the newest progress value is what a late reader needs.
      const replaced =
        item.progressToken !== undefined && (this.dropQueued((queued) => queued.progressToken === item.progressToken) || this.dropQueued((queued) => queued.progressToken === undefined && !queued.final));
      this.droppedFrames++;
      if (!replaced) return;
    }
    this.queue.push(item);
    this.queuedBytes += item.data.length;
    if (item.changeKey !== undefined) (this.queuedChanges ??= new Map()).set(item.changeKey, item);
  }

  private dropQueued(matches: (queued: QueuedFrame) => boolean): boolean {
    const index = this.queue.findIndex(matches);
    if (index < 0) return false;
    this.queuedBytes -= this.queue[index].data.length;
    this.queue.splice(index, 1);
    return true;
  }

  private send(item: QueuedFrame): void {
    if (item.final) this.endWith(item.data);
    else this.append(item.data);
  }

  /** Adds to this tick's batch; the batch is written on the next tick, or now if it grew large. */
  private append(data: string): void {
    this.batch += data;
    if (this.batch.length >= MAX_BATCH_CHARS) {
      this.writeBatch();
      return;
    }
    if (!this.batchScheduled) {
      this.batchScheduled = true;
      process.nextTick(() => {
        this.batchScheduled = false;
        this.writeBatch();
      });
    }
  }

  private writeBatch(): void {
    const data = this.batch;
    if (data === '' || this.response.destroyed || this.response.writableEnded) return;
    this.batch = '';
    if (!this.response.write(data)) {
      this.waitingForDrain = true;
      this.response.once('drain', () => this.flush());
    }
  }

  /** The final frame leaves with whatever this tick still holds, in the same write. */
  private endWith(data: string): void {
    const batch = this.batch;
    this.batch = '';
    this.response.end(batch + data);
  }

  private flush(): void {
    this.waitingForDrain = false;
    while (this.queue.length > 0 && !this.waitingForDrain && !this.response.destroyed) {
      const item = this.queue.shift()!;
      this.queuedBytes -= item.data.length;
      if (item.changeKey !== undefined) this.queuedChanges?.delete(item.changeKey);
      this.send(item);
    }
  }

  /** Commits to SSE right away (a standalone stream that may stay silent for a while). */
  open(): void {
    this.startStream();
  }

  private startStream(): void {
    if (this.streaming) return;
    this.streaming = true;
    this.response.writeHead(200, SSE_HEADERS);
    this.response.flushHeaders();
  }
}

function frame(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/** The key under which a listen stream coalesces a change notification: its method, and the URI of an update. */
function changeKeyOf(message: JsonRpcNotification | JsonRpcRequest): string | undefined {
  if ('id' in message) return undefined;
  switch (message.method) {
    case 'notifications/tools/list_changed':
    case 'notifications/prompts/list_changed':
    case 'notifications/resources/list_changed':
      return message.method;
    case 'notifications/resources/updated': {
      const uri = message.params?.uri;
      return typeof uri === 'string' ? `updated ${uri}` : undefined;
    }
    default:
      return undefined;
  }
}

function progressTokenOf(message: JsonRpcNotification | JsonRpcRequest): string | number | undefined {
  if (message.method !== 'notifications/progress' || 'id' in message) return undefined;
  return message.params?.progressToken as string | number | undefined;
}
