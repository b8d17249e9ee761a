import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on right now, from the kernel: for a server whose URL must be known before it
 * listens (an `auth.resource`, a Redis started by the test).
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
