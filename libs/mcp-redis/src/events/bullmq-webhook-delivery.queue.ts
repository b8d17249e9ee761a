import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type Job, Queue, type RedisClient } from 'bullmq';
import type { Redis } from 'ioredis';
import { McpError, McpErrorCode } from 'nest-mcp';
import { parseTraceContext, type McpWebhookDelivery, type McpWebhookDeliveryQueue } from 'nest-mcp/backend';
import { RoundWorker } from '../bullmq-round.worker.js';
import { dropBlockingConnection, jobsReleased } from '../bullmq-worker-shutdown.js';
import { closeRedisClient } from '../close-redis-client.js';
import { McpRedisConnection } from '../mcp-redis.connection.js';
import { McpRedisResolvedOptions } from '../mcp-redis-resolved-options.js';
import { withTimeout } from '../with-timeout.js';

/** Finished jobs kept for inspection (BullMQ's `removeOnComplete` / `removeOnFail`). */
const KEEP_COMPLETED = { count: 1_000, age: 3_600 };
const KEEP_FAILED = { count: 5_000, age: 24 * 3_600 };
/**
 * Runs of one attempt when the worker itself fails (Redis unreachable while it read the subscription), not the
 * endpoint: the endpoint's failures are retried by the delivery worker, as new jobs with their own backoff.
 */
const INFRASTRUCTURE_ATTEMPTS = { attempts: 3, backoff: { type: 'exponential', delay: 1_000 } } as const;
/** How long the worker waits before it tries Redis again after losing it (BullMQ's default is 15 s). */
const RECONNECT_RETRY_MS = 1_000;

/**
 * Webhook deliveries as BullMQ jobs (`events.queueName`, under `keyPrefix`), shared by every replica: each job is one
 * attempt of one POST, taken by exactly one replica's worker once its delay passed. The delivery worker enqueues the
 * next attempt itself, with its backoff, as a delayed job: a pending retry lives in Redis, not in the process that
 * made the failed attempt, so it happens when that process is gone (kill -9, a deploy) — from whichever replica is
 * up.
 *
 * - A job's id is derived from the delivery and its attempt number: enqueuing the same attempt twice (a worker that
 *   died after it enqueued the next attempt, and whose job was therefore run again) adds it once.
 * - A worker that dies mid-attempt stops renewing its lock; BullMQ's stalled-job check gives the job to another worker
 *   within about `lockDurationMs + stalledIntervalMs`, which makes the attempt again (the receiver deduplicates on
 *   `webhook-id`, which does not change).
 * - On shutdown the worker stops taking jobs and waits for the attempts in flight (each bounded by
 *   `events.webhooks.timeoutMs`) up to `lockDurationMs`.
 * - With Redis down, `enqueue` rejects with `-32603` and HTTP 503 within the command timeout.
 */
@Injectable()
export class BullMqWebhookDeliveryQueue implements McpWebhookDeliveryQueue, OnApplicationShutdown {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;
  private readonly logger = new Logger('McpRedisWebhooks');
  private queue?: Queue<McpWebhookDelivery>;
  private producerClient?: Redis;
  private worker?: RoundWorker<McpWebhookDelivery>;
  private workerClient?: Redis;
  /** BullMQ's blocking connection of the worker, once it first connected (cut at shutdown). */
  private blockingClient?: RedisClient;
  private closing?: Promise<void>;
  private stopping = false;
  /** Set once the attempts in flight ended at shutdown (until then they may still enqueue their retries). */
  private producerClosed = false;
  private lastWorkerError?: string;

  /** @internal Created by Nest's injector (`McpRedisModule`), from the module's internal connection and options. */
  constructor(
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {}

  /** The named server this is of (`McpRedis.forServer`); `undefined` for the module's own. */
  get server(): string | undefined {
    return this.options.server;
  }

  async enqueue(delivery: McpWebhookDelivery, delayMs: number): Promise<void> {
    if (this.producerClosed)
      throw McpError.internal('Webhook deliveries are not queued on this server any more (shutting down)');
    const jobId = createHash('sha256').update(`${delivery.jobId}\n${delivery.attempt}`).digest('base64url');
    try {
      await withTimeout(
        this.producer().add('delivery', delivery, {
          jobId,
          delay: Math.max(0, Math.ceil(delayMs)),
          removeOnComplete: KEEP_COMPLETED,
          removeOnFail: KEEP_FAILED,
          ...INFRASTRUCTURE_ATTEMPTS,
        }),
        this.options.commandTimeoutMs,
      );
    } catch (error) {
      throw new McpError(
        McpErrorCode.InternalError,
        `Webhook queue unavailable: ${(error as Error)?.message ?? String(error)}`,
        { retryAfterSeconds: 5 },
        503,
      );
    }
  }

  process(handle: (delivery: McpWebhookDelivery) => Promise<void>): () => void {
    if (this.worker) {
      // A second server given this queue: its deliveries would be made with the first server's subscriptions and
      // secrets.
      throw new Error(
        'BullMqWebhookDeliveryQueue: a worker is attached already. The webhook queue of one McpRedis scope serves ' +
          'one server: name each server of the application, redis.serverOptions(options, { server: name }) ' +
          '(docs/servers.md)',
      );
    }
    const events = this.options.events;
    // A worker's connection must retry forever (BullMQ requires `maxRetriesPerRequest: null`).
    this.workerClient = this.connection.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
    const worker = new RoundWorker<McpWebhookDelivery>(events.queueName, (job) => this.run(job, handle), {
      connection: this.workerClient,
      prefix: this.options.keyPrefix,
      // `job.processedBy` then names the process that made an attempt.
      name: `${hostname()}:${process.pid}`,
      concurrency: events.concurrency,
      lockDuration: events.lockDurationMs,
      stalledInterval: events.stalledIntervalMs,
      maxStalledCount: events.maxStalledCount,
      runRetryDelay: RECONNECT_RETRY_MS,
    });
    worker.on('error', (error) => this.onWorkerError(error));
    worker.on('ready', () => (this.lastWorkerError = undefined));
    worker.on('failed', (job, error) => {
      if (!this.stopping && job && job.attemptsMade >= (job.opts.attempts ?? 1)) {
        this.logger.warn(`A webhook delivery job was given up on: ${error.message}`);
      }
    });
    this.worker = worker;
    // Settles once the blocking connection first connected (never, while Redis stays down: nothing to cut then).
    void worker.getBackend().blockingClient?.then(
      (client) => (this.blockingClient = client),
      () => undefined,
    );
    return () => void this.close();
  }

  /** Stops taking jobs, waits for the attempts in flight (at most `lockDurationMs`), then closes the connections. */
  close(): Promise<void> {
    this.stopping = true;
    this.closing ??= this.shutdown();
    return this.closing;
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private async run(
    job: Job<McpWebhookDelivery>,
    handle: (delivery: McpWebhookDelivery) => Promise<void>,
  ): Promise<void> {
    if (!isDelivery(job.data)) {
      this.logger.warn(
        `Dropped job ${String(job.id)} of queue ${this.options.events.queueName}: it is not a webhook delivery`,
      );
      return;
    }
    await handle(deliveryOf(job.data));
  }

  private async shutdown(): Promise<void> {
    const { commandTimeoutMs, events } = this.options;
    const worker = this.worker;
    if (worker) {
      // As the task runner does (bullmq-task.runner.ts): no new job, the attempts in flight waited for (not once Redis
      // is unreachable: they could not record their outcome), then a forced close, because BullMQ's graceful one
      // waits for its blocking connection to end, which never happens while that connection is reconnecting.
      worker.refuseJobs();
      void worker.pause(true).catch(() => undefined);
      this.blockingClient?.disconnect();
      if (!(await jobsReleased(worker, this.workerClient, events.lockDurationMs))) {
        this.logger.warn(
          'Webhook attempts in flight did not end in time: their jobs are made again when their locks expire',
        );
      }
      await withTimeout(worker.close(true), commandTimeoutMs).catch(() => undefined);
      dropBlockingConnection(this.blockingClient);
    }
    this.producerClosed = true;
    await withTimeout(this.queue?.close() ?? Promise.resolve(), commandTimeoutMs).catch(() => undefined);
    await Promise.all(
      [this.workerClient, this.producerClient].map((client) => client && closeRedisClient(client, commandTimeoutMs)),
    );
  }

  /** The producer, made on first use; its commands fail fast (one reconnection attempt, the command timeout). */
  private producer(): Queue<McpWebhookDelivery> {
    if (this.queue) return this.queue;
    const client = this.connection.duplicate({
      maxRetriesPerRequest: 1,
      commandTimeout: this.options.commandTimeoutMs,
    });
    this.producerClient = client;
    const queue = new Queue<McpWebhookDelivery>(this.options.events.queueName, {
      connection: client,
      prefix: this.options.keyPrefix,
    });
    queue.on('error', () => undefined); // the connection logs its errors once per outage
    this.queue = queue;
    return queue;
  }

  /** BullMQ's errors, logged once per kind until the worker is ready again (a lost Redis repeats them). */
  private onWorkerError(error: Error): void {
    if (this.stopping || error.message === this.lastWorkerError) return;
    this.lastWorkerError = error.message;
    this.logger.warn(`Webhook queue worker: ${error.message}`);
  }
}

/** What a job of the queue must carry to be attempted (anything else on the prefix is dropped). */
function isDelivery(data: unknown): data is McpWebhookDelivery {
  const delivery = data as Partial<McpWebhookDelivery> | null;
  return (
    typeof delivery === 'object' &&
    delivery !== null &&
    typeof delivery.jobId === 'string' &&
    (delivery.kind === 'event' || delivery.kind === 'gap' || delivery.kind === 'terminated') &&
    typeof delivery.subscriptionKey === 'string' &&
    typeof delivery.incarnation === 'string' &&
    typeof delivery.webhookId === 'string' &&
    typeof delivery.body === 'string' &&
    Number.isSafeInteger(delivery.attempt)
  );
}

/** An event type name as nest-mcp declares them (the bound of `@McpEvent`): what may name an attempt's span. */
const EVENT_NAME = /^[A-Za-z0-9_.:/-]{1,128}$/;

/**
 * The delivery a checked job carries, its telemetry fields checked too (the queue is a trust boundary): an event name
 * or trace context that is not of their shape is dropped, never the delivery.
 */
function deliveryOf(data: McpWebhookDelivery): McpWebhookDelivery {
  const { eventName, traceContext, ...delivery } = data;
  const checkedContext = traceContext === undefined ? undefined : parseTraceContext(traceContext);
  return {
    ...delivery,
    ...(typeof eventName === 'string' && EVENT_NAME.test(eventName) && { eventName }),
    ...(checkedContext && { traceContext: checkedContext }),
  };
}
