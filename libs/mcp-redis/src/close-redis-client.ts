import type { Redis } from 'ioredis';
import { withTimeout } from './with-timeout.js';

/**
 * Closes an ioredis client within `graceMs`, whatever state Redis is in.
 *
 * - Connected: `QUIT`, so that Redis answers the commands sent before it, bounded by `graceMs` (a connection can stall
 *   mid-way), then the socket is dropped if it is still open.
 * - Not connected (connecting, waiting to reconnect, never connected): `disconnect()` at once. `quit()` would wait in
 *   the offline queue for a reconnection that may never come, and its retry timer would keep the process alive.
 *
 * A client that was waiting to reconnect stays in ioredis's `reconnecting` state after `disconnect()`, with no socket
 * and no timer: nothing of it keeps the process alive, but commands queued on it never settle (callers bound their
 * waits).
 * @internal
 */
export async function closeRedisClient(client: Redis, graceMs: number): Promise<void> {
  if (client.status === 'ready') {
    await withTimeout(client.quit(), graceMs).catch(() => undefined);
  }
  // Read again: QUIT usually ended it meanwhile.
  if (!ended(client)) client.disconnect();
}

function ended(client: Redis): boolean {
  return client.status === 'end';
}
