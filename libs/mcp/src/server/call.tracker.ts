import { Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import type { JsonRpcId } from '../protocol/json-rpc.interface.js';
import type { ResponseChannel } from '../protocol/response-channel.js';
import { errorResponse } from './mcp.dispatcher.js';

interface TrackedCall {
  id: JsonRpcId;
  channel: ResponseChannel;
  abort: AbortController;
  timer?: NodeJS.Timeout;
  /** Transport-specific work when the server starts closing (e.g. no keep-alive after this response). */
  onShutdown?: () => void;
  /** Transport-specific work when the shutdown deadline passed with the call still open. */
  onDeadline?: () => void;
}

/** Options of one tracked call. */
export interface TrackOptions {
  /** Whether `callTimeoutMs` applies (not to long-lived streams such as `subscriptions/listen`). */
  timeout: boolean;
  onShutdown?: () => void;
  onDeadline?: () => void;
}

/**
 * The calls in flight, whatever their transport: enforces the per-call timeout and drains them on shutdown.
 *
 * - Timeout (`callTimeoutMs`): the call's `ctx.signal` aborts and the client gets `-32603` at once; whatever the
 *   handler returns later is dropped.
 * - Shutdown: every signal aborts so handlers can wind down, and the server waits for their answers up to
 *   `shutdownTimeoutMs`; calls still open then are answered with `-32603`.
 */
@Injectable()
export class McpCallTracker {
  private readonly calls = new Set<TrackedCall>();
  private drained?: () => void;

  constructor(private readonly options: McpResolvedOptions) {}

  /** Calls in flight right now. */
  get size(): number {
    return this.calls.size;
  }

  /** Tracks a call until the returned function is called (when its final response went out). */
  track(id: JsonRpcId, channel: ResponseChannel, abort: AbortController, options: TrackOptions): () => void {
    const call: TrackedCall = { id, channel, abort, onShutdown: options.onShutdown, onDeadline: options.onDeadline };
    const limit = this.options.callTimeoutMs;
    if (options.timeout && limit > 0) {
      call.timer = setTimeout(() => {
        abort.abort(new Error(`The call timed out after ${limit} ms`));
        channel.respond(errorResponse(id, new McpError(McpErrorCode.InternalError, `Request timed out after ${limit} ms`)));
        // Answered: no longer in flight, whatever the handler does now.
        this.forget(call);
      }, limit);
      call.timer.unref();
    }
    this.calls.add(call);
    return () => this.forget(call);
  }

  private forget(call: TrackedCall): void {
    clearTimeout(call.timer);
    if (this.calls.delete(call) && this.calls.size === 0) this.drained?.();
  }

  /** Aborts every call, waits for their answers up to the deadline, then answers the rest. */
  async drain(): Promise<void> {
    for (const call of this.calls) {
      call.onShutdown?.();
      call.abort.abort(new Error('The server is shutting down'));
    }
    if (this.calls.size > 0) {
      await new Promise<void>((resolve) => {
        const deadline = setTimeout(resolve, this.options.shutdownTimeoutMs);
        this.drained = () => {
          clearTimeout(deadline);
          resolve();
        };
      });
    }
    for (const call of [...this.calls]) {
      call.channel.respond(
        errorResponse(call.id, new McpError(McpErrorCode.InternalError, 'The server shut down before the request completed')),
      );
      call.onDeadline?.();
      this.forget(call);
    }
  }
}
