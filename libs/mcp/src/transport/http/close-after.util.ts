import type { ServerResponse } from 'node:http';

/** The server is closing: the connection ends with this response instead of idling in keep-alive. */
export function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.shouldKeepAlive = false;
  else response.once('finish', () => response.socket?.end());
}

/**
 * How long past the shutdown deadline a connection may stay open: long enough for the drain's own `-32603` answers
 * to reach their clients, short enough that a reader that never drains cannot hold the shutdown.
 */
export const CLOSE_GRACE_MS = 250;

/**
 * The one rule for cutting connections when the server closes: `close` runs `CLOSE_GRACE_MS` after the deadline,
 * `deadlineInMs` from now (0 when the deadline has just passed). Used for the server's remaining connections and for
 * a connection-bound call the drain answered.
 */
export function closeAfterDeadline(close: () => void, deadlineInMs = 0): void {
  setTimeout(close, deadlineInMs + CLOSE_GRACE_MS).unref();
}
