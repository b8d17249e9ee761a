import type { ServerResponse } from 'node:http';

/** The server is closing: the connection ends with this response instead of idling in keep-alive. */
export function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.shouldKeepAlive = false;
  else response.once('finish', () => response.socket?.end());
}
