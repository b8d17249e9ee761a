import { Logger } from '@nestjs/common';
import type { McpWebhookDelivery, McpWebhookDeliveryQueue } from '../../protocol/webhook-delivery-queue.interface.js';

/** Attempts made at once by default: a burst of events never opens thousands of connections at a time. */
const DEFAULT_CONCURRENCY = 16;

/**
 * The default delivery queue: timers in this process. A job whose delay passed waits in line until one of
 * `concurrency` attempts is free (and, before a worker is attached, until there is one); a pending retry does not
 * survive a restart (a shared queue such as BullMQ does). Timers are unref'd: a pending retry never holds the process
 * open.
 */
export class InMemoryWebhookDeliveryQueue implements McpWebhookDeliveryQueue {
  private readonly logger = new Logger('McpWebhooks');
  private worker?: (delivery: McpWebhookDelivery) => Promise<void>;
  /** Due jobs waiting for a free attempt, in the order they became due. */
  private readonly waiting: McpWebhookDelivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = 0;

  constructor(private readonly concurrency = DEFAULT_CONCURRENCY) {}

  async enqueue(delivery: McpWebhookDelivery, delayMs: number): Promise<void> {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.hand(delivery);
      },
      Math.max(0, delayMs),
    );
    timer.unref();
    this.timers.add(timer);
  }

  process(worker: (delivery: McpWebhookDelivery) => Promise<void>): () => void {
    this.worker = worker;
    this.pump();
    return () => {
      this.worker = undefined;
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
    };
  }

  private hand(delivery: McpWebhookDelivery): void {
    this.waiting.push(delivery);
    this.pump();
  }

  /** Starts due jobs while attempts are free. */
  private pump(): void {
    while (this.worker && this.running < this.concurrency && this.waiting.length > 0) {
      const delivery = this.waiting.shift()!;
      this.running++;
      this.worker(delivery)
        .catch((error: unknown) =>
          this.logger.error('A webhook delivery failed unexpectedly', (error as Error)?.stack ?? String(error)),
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}
