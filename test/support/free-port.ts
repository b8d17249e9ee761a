import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on right now, from the kernel: for a server whose URL must be known before it
 * listens (an `auth.resource`, a Redis started by the test). The start scripts have the same helper in
 * scripts/free-port.mjs; this one is TypeScript because the bench compiles test/support into dist/bench, where a
 * relative import of a script would not resolve.
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
