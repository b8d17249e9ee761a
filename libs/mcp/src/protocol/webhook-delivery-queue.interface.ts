import type { McpTraceContext } from './trace-context.interface.js';

/**
 * One webhook POST to make (an event, or a `gap` / `terminated` envelope), as queued. The body is serialized once:
 * every attempt sends these exact bytes with the same `webhook-id`, and a fresh timestamp and signature.
 */
export interface McpWebhookDelivery {
  /** Unique per POST to make (a retry keeps it): a queue may use it to refuse duplicates. */
  readonly jobId: string;
  readonly kind: 'event' | 'gap' | 'terminated';
  /** The subscription's store key and incarnation (a delivery for another incarnation is dropped). */
  readonly subscriptionKey: string;
  readonly incarnation: string;
  /** The `webhook-id` header. */
  readonly webhookId: string;
  /** The exact body. */
  readonly body: string;
  /** The event's position in its type's log, settled when the delivery ends (events of types with replay). */
  readonly position?: string;
  /** The attempt this job is (1 for the first). */
  readonly attempt: number;
  /** When the first attempt was made (ms since the epoch): the retry window counts from it. */
  readonly firstAttemptAt?: number;
  /**
   * For a `terminated` envelope, which outlives its subscription: where to send it and how to sign it (the secret
   * sealed, never in clear).
   */
  readonly target?: { readonly url: string; readonly subscriptionId: string; readonly sealedSecret: string };
  /** For an `event` delivery, its type's name (names the attempt's span). */
  readonly eventName?: string;
  /** For an `event` delivery, the span it was emitted in (`McpStoredEvent.traceContext`): each attempt's span links to it. */
  readonly traceContext?: McpTraceContext;
}

/**
 * The queue of webhook deliveries (docs/events.md, ADR 0024): each job is handed to exactly one worker, once its
 * delay has passed. The worker makes one attempt and enqueues the next itself (with its backoff), so a queue needs no
 * retry logic. The default runs in this process (`InMemoryWebhookDeliveryQueue`); a shared one (BullMQ) lets any
 * replica deliver, exactly one per attempt, and keeps a pending retry across a restart.
 */
export interface McpWebhookDeliveryQueue {
  /**
   * For a backend kept per named server (`McpRedis.serverOptions(options, { server })`): the server it belongs to,
   * `undefined` for one that is not a named server's. `McpModule` refuses to start a server given another server's
   * (docs/servers.md). Omit it for a backend of one server.
   */
  readonly server?: string;
  /** `true` when several replicas share it. */
  readonly sharedAcrossReplicas?: boolean;
  /** Queues a delivery, to be handed to a worker after `delayMs`. */
  enqueue(delivery: McpWebhookDelivery, delayMs: number): Promise<void>;
  /** Starts handing queued deliveries to `worker` (one call per job); returns what stops it. */
  process(worker: (delivery: McpWebhookDelivery) => Promise<void>): () => void;
}

/** Injection token of the webhook delivery queue (the `events.webhooks.queue` option, or the in-memory default). */
export const MCP_WEBHOOK_DELIVERY_QUEUE = Symbol('nest-mcp:webhook-delivery-queue');
