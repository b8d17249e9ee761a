/**
 * A loopback port nothing listens on right now, from the kernel (the probe closes it again, so the caller binds it
 * right after): for a server whose URL must be known before it listens. Shared by the start scripts, the nginx
 * balancer and the cluster scripts (the tests have a TypeScript twin, test/support/free-port.ts, which the bench compiles).
 */
import { createServer } from 'node:net';

/** @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
