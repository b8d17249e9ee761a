import { Logger } from '@nestjs/common';
import type { McpWebhookDelivery, McpWebhookDeliveryQueue } from '../../protocol/webhook-delivery-queue.interface.js';

/**
 * The default delivery queue: timers in this process. A job enqueued before a worker is attached waits for it; a
 * pending retry does not survive a restart (a shared queue such as BullMQ does). Timers are unref'd: a pending retry
 * never holds the process open.
 */
export class InMemoryWebhookDeliveryQueue implements McpWebhookDeliveryQueue {
  private readonly logger = new Logger('McpWebhooks');
  private worker?: (delivery: McpWebhookDelivery) => Promise<void>;
  private readonly waiting: McpWebhookDelivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  async enqueue(delivery: McpWebhookDelivery, delayMs: number): Promise<void> {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.hand(delivery);
    }, Math.max(0, delayMs));
    timer.unref();
    this.timers.add(timer);
  }

  process(worker: (delivery: McpWebhookDelivery) => Promise<void>): () => void {
    this.worker = worker;
    for (const delivery of this.waiting.splice(0)) this.hand(delivery);
    return () => {
      this.worker = undefined;
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
    };
  }

  private hand(delivery: McpWebhookDelivery): void {
    if (!this.worker) {
      this.waiting.push(delivery);
      return;
    }
    this.worker(delivery).catch((error: unknown) => this.logger.error(`A webhook delivery failed unexpectedly`, (error as Error)?.stack ?? String(error)));
  }
}
