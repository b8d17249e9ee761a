import type { RedisClient } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RoundWorker } from './bullmq-round.worker.js';

/**
 * Resolves `true` once BullMQ finished with every job `worker` took, `false` after `ms` or as soon as its connection
 * (`client`) is down: a job cannot go back to the queue, nor record its outcome, without Redis (its lock expires).
 * @internal
 */
export async function jobsReleased<T>(worker: RoundWorker<T>, client: Redis | undefined, ms: number): Promise<boolean> {
  if (!worker.busy) return true;
  let lost!: () => void;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      worker.idle().then(() => true),
      new Promise<boolean>((resolve) => {
        lost = () => resolve(false);
        if (client?.status !== 'ready') lost();
        client?.once('close', lost);
        timer = setTimeout(lost, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    client?.off('close', lost);
  }
}

/**
 * Makes sure BullMQ's blocking connection is gone. The forced close disconnected it; but a reset of that connection
 * already under way (BullMQ's watchdog for a stuck blocking command) may connect it again afterwards, and a
 * connection left open (or retrying) would keep the process alive: any such comeback is cut at once.
 * @internal
 */
export function dropBlockingConnection(client: RedisClient | undefined): void {
  if (!client) return;
  const drop = () => client.disconnect();
  client.on('ready', drop);
  client.on('reconnecting', drop);
  if (client.status !== 'end') client.disconnect();
}
