import type { ServerResponse } from 'node:http';
import type { Subscription } from 'rxjs';
import type { ChannelMessage, ResponseChannel } from '../../protocol/response-channel.js';

/** What the client's Accept header allows. */
export interface AcceptedMediaTypes {
  json: boolean;
  sse: boolean;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
} as const;

/** Writes one JSON body with its status. */
export function writeJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
  });
  response.end(payload);
}

/** Writes a status with no body (202 for notifications, 405 for other verbs). */
export function writeEmpty(response: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, headers);
  response.end();
}

/**
 * Streams a request's channel to the HTTP response (DESIGN D2): nothing is committed until the first message.
 * A final response that comes first goes out as one `application/json` body with its own status; a notification
 * that comes first upgrades the response to `text/event-stream`, and everything after it is an SSE frame, the final
 * response last.
 */
export class ResponseWriter {
  private streaming = false;
  private readonly subscription: Subscription;

  constructor(
    channel: ResponseChannel,
    private readonly response: ServerResponse,
    private readonly accepted: AcceptedMediaTypes,
  ) {
    this.subscription = channel.messages$.subscribe({
      next: (message) => this.write(message),
    });
    response.once('close', () => this.subscription.unsubscribe());
  }

  private write(message: ChannelMessage): void {
    if (this.response.destroyed || this.response.writableEnded) return;
    if (message.type === 'notification') {
      // A client that cannot read SSE only gets the final response.
      if (!this.accepted.sse) return;
      this.startStream();
      this.response.write(frame(message.message));
      return;
    }
    if (!this.streaming && this.accepted.json) {
      writeJson(this.response, message.httpStatus, message.message);
      return;
    }
    this.startStream();
    this.response.end(frame(message.message));
  }

  private startStream(): void {
    if (this.streaming) return;
    this.streaming = true;
    this.response.writeHead(200, SSE_HEADERS);
    this.response.flushHeaders();
  }
}

function frame(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
