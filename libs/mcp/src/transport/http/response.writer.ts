import type { ServerResponse } from 'node:http';
import type { Observable, Subscription } from 'rxjs';
import { challengeHeaders } from '../../protocol/access-token.interface.js';
import type { CallCancellation } from '../../protocol/call-cancellation.js';
import type { JsonRpcId } from '../../protocol/json-rpc.interface.js';
import type { McpError } from '../../protocol/mcp.error.js';
import type { PlaygroundDocument } from '../../playground/playground-document.interface.js';
import { errorResponse } from '../../server/mcp.dispatcher.js';
import type { ChannelMessage, ChannelSink, ResponseChannel } from '../../protocol/response-channel.js';
import { sseTextOf } from './sse-frame.util.js';
import { pipeSseResponse } from './sse-response.pipeline.js';
import { SseSocketWriter } from './sse-socket.writer.js';
import type { QueueBounds } from './sse-queue.operator.js';

export type { QueueBounds } from './sse-queue.operator.js';

/** What the client's Accept header allows. */
export interface AcceptedMediaTypes {
  json: boolean;
  sse: boolean;
}

/**
 * Writes one JSON body with its status. A refusal (429, 503) whose JSON-RPC error carries `data.retryAfterSeconds`
 * also gets it as `Retry-After`.
 */
export function writeJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  const payload = JSON.stringify(body);
  response.writeHead(status, jsonHeaders(status, body, payload, headers));
  response.end(payload);
}

/**
 * The headers of a JSON answer: `headers`, `Retry-After` for a 429 or 503 whose JSON-RPC error carries
 * `data.retryAfterSeconds`, and the body's type and length.
 */
export function jsonHeaders(
  status: number,
  body: unknown,
  payload: string,
  headers: Record<string, string> = {},
): Record<string, string | number> {
  const retryAfter = status === 429 || status === 503 ? retryAfterOf(body) : undefined;
  return {
    ...(retryAfter !== undefined && { 'Retry-After': retryAfter }),
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
  };
}

/**
 * Writes an error as a JSON-RPC error body with its HTTP status; an authorization failure (`McpAuthError`) also gets
 * its OAuth challenge as `WWW-Authenticate` (RFC 6750 §3).
 */
export function writeError(
  response: ServerResponse,
  id: JsonRpcId | undefined,
  error: McpError,
  status = error.httpStatus,
): void {
  writeJson(response, status, errorResponse(id, error), challengeHeaders(error));
}

/**
 * Puts the challenge of an authorization failure on a response that has not started yet, for an error that reaches the
 * response through its channel (the scope check of a handler): the channel carries the JSON-RPC body only, and
 * `writeJson` keeps headers set before it. A response already streaming gets the error as an event, without header.
 */
export function setChallengeHeader(response: ServerResponse, error: McpError): void {
  if (response.headersSent || response.destroyed) return;
  for (const [name, value] of Object.entries(challengeHeaders(error))) response.setHeader(name, value);
}

function retryAfterOf(body: unknown): string | undefined {
  const seconds = (body as { error?: { data?: { retryAfterSeconds?: unknown } } } | undefined)?.error?.data
    ?.retryAfterSeconds;
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 0 ? String(seconds) : undefined;
}

/** Writes a whole document (the playground's) with its own headers, 200. */
export function writeDocument(response: ServerResponse, document: PlaygroundDocument | undefined): void {
  if (response.headersSent || response.destroyed) return;
  if (!document) {
    writeEmpty(response, 404);
    return;
  }
  response.writeHead(200, { ...document.headers, 'Content-Length': Buffer.byteLength(document.body) });
  response.end(document.body);
}

/** Writes a status with no body (202 for notifications, 405 for other verbs). */
export function writeEmpty(response: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, headers);
  response.end();
}

/**
 * Answers a request from its channel (ADR 0002). Nothing is committed until the first message:
 *
 * - a final response that comes first goes out as one `application/json` body with its own status, straight from
 *   the channel: no RxJS object is made for it (ADR 0015);
 * - a notification that comes first upgrades the response to `text/event-stream`: the channel hands over the RxJS
 *   `Subject` its messages flow through from then on, and {@link pipeSseResponse} maps it to the response
 *   (`Subject → sseQueue → SseSocketWriter`), the final response last.
 *
 * The writer is also the one place that notices a client going away: the response closing before it finished
 * abandons the channel and cancels the call (spec 2026-07-28: basic/transports/streamable-http, "Cancellation").
 */
export class ResponseWriter implements ChannelSink {
  /** Set once the response is committed to SSE. */
  private socket?: SseSocketWriter;
  /** The SSE pipeline, from the first notification on. */
  private pipeline?: Subscription;
  private readonly disconnect: () => void;

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

  /** From the channel: a message before any notification, the final response (the JSON path) or a keep-alive. */
  next(message: ChannelMessage): void {
    if (this.response.destroyed || this.response.writableEnded) return;
    if (message.type === 'keepalive') {
      this.socket?.keepAlive();
      return;
    }
    // Only reaches here for a client that cannot read SSE (see `stream`): it gets the final response only.
    if (message.type === 'notification') return;
    // An error before any notification keeps its HTTP status even for a client that only accepts SSE.
    if (!this.socket && (this.accepted.json || message.httpStatus !== 200)) {
      writeJson(this.response, message.httpStatus, message.message);
      return;
    }
    this.startStream().end(sseTextOf(message));
  }

  /** @internal The channel's first notification: from it on, the call's messages flow through `messages$`. */
  stream(messages$: Observable<ChannelMessage>): void {
    if (this.response.destroyed || this.response.writableEnded) return;
    this.pipeline = this.accepted.sse
      ? // The queue counts what the client did not get on the channel, where telemetry reads it when the call ends.
        pipeSseResponse(messages$, this.startStream(), this.bounds, this.channel)
      : messages$.subscribe(this);
  }

  /** From the channel: it ended before any notification; a standalone stream (`open`) ends here. */
  complete(): void {
    this.socket?.complete();
  }

  /** Commits to SSE right away (a standalone stream that may stay silent for a while). */
  open(): void {
    this.startStream();
  }

  private startStream(): SseSocketWriter {
    return (this.socket ??= new SseSocketWriter(this.response));
  }

  private closed(): void {
    this.disconnect();
    this.pipeline?.unsubscribe();
    if (!this.response.writableFinished) {
      this.channel.abandon();
      this.cancellation?.abort(new Error('The client disconnected'));
    }
  }
}
