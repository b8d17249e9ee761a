import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { type Job, Queue, type RedisClient, WaitingError } from 'bullmq';
import type { Redis } from 'ioredis';
import { McpError, McpErrorCode } from 'nest-mcp';
import type { McpTaskExecutor, McpTaskQueueDepth, McpTaskRunner } from 'nest-mcp/backend';
import { RoundWorker } from './bullmq-round.worker.js';
import { dropBlockingConnection, jobsReleased } from './bullmq-worker-shutdown.js';
import { closeRedisClient } from './close-redis-client.js';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';
import { withTimeout } from './with-timeout.js';

/** What a job of the queue carries: the task id only (everything else is in the task store). */
interface RoundJobData {
  readonly taskId: string;
}

/** The reason BullMQ gives a job whose worker died more often than `maxStalledCount` allows. */
const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';
/** How long `status()` waits for the queue's counts before it answers with the last known ones. */
const STATUS_TIMEOUT_MS = 1_000;
/** Finished jobs kept for inspection (BullMQ's `removeOnComplete` / `removeOnFail`). */
const KEEP_COMPLETED = { count: 1_000, age: 3_600 };
const KEEP_FAILED = { count: 5_000, age: 24 * 3_600 };
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** How long the worker waits before it tries Redis again after losing it (BullMQ's default is 15 s). */
const RECONNECT_RETRY_MS = 1_000;

/**
 * Task rounds on a BullMQ queue (`tasks.queueName`, under `keyPrefix`): `enqueue` adds a job carrying the task id,
 * and the worker of whichever replica takes it runs the round through this process's executor (`McpTaskWorker`).
 *
 * - A worker that dies mid-round (kill -9, lost host) stops renewing its lock; BullMQ's stalled-job check gives the
 *   job to another worker within about `lockDurationMs + stalledIntervalMs`, which replays the handler from the
 *   task's record (still `working`, with the answers so far). Past `tasks.maxStalledCount` such restarts the task
 *   ends `failed`.
 * - On graceful shutdown the rounds in flight are aborted by the drain and their jobs go back to the queue (the runner
 *   is `durable`), so another replica runs them; they do not count as stalls. `close()` is bounded whatever state Redis
 *   is in: it waits for those rounds at most `lockDurationMs` (not at all once Redis is unreachable), then closes the
 *   worker and its connections.
 * - `cancel` aborts the round wherever it runs: it is published on `<prefix>:task-abort` and every replica's runner
 *   aborts its own.
 * - The producer fails fast: with Redis down, `enqueue` rejects with `-32603` and HTTP 503 within the command
 *   timeout, never waits for Redis to come back.
 */
@Injectable()
export class BullMqTaskRunner implements McpTaskRunner, OnModuleDestroy, OnApplicationShutdown {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;
  /** Jobs outlive this process: a round cut short by shutdown goes back to the queue instead of failing its task. */
  readonly durable = true;
  private readonly logger = new Logger('McpRedisTasks');
  private executor?: McpTaskExecutor;
  private queue?: Queue<RoundJobData>;
  private worker?: RoundWorker<RoundJobData>;
  private workerClient?: Redis;
  /** BullMQ's own blocking connection (a duplicate of `workerClient`), once it connected. */
  private blockingClient?: RedisClient;
  private producerClient?: Redis;
  private stopAborts?: Promise<(() => void) | undefined>;
  private closing?: Promise<void>;
  /** Set once the application shuts down: errors from then on are the connections closing, not news. */
  private stopping = false;
  private notTaking = false;
  private lastCounts = { waiting: 0, active: 0, delayed: 0 };
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

  /** Starts this replica's BullMQ worker (the executor attaches after the handlers were discovered). */
  attach(executor: McpTaskExecutor): void {
    if (this.executor === executor) return;
    if (this.executor) {
      // A second server given this runner: its rounds would be run by the first server's handlers.
      throw new Error(
        'BullMqTaskRunner: a server runs its task rounds here already. The task queue of one McpRedis scope serves ' +
          'one server: name each server of the application, redis.serverOptions(options, { server: name }) ' +
          '(docs/servers.md)',
      );
    }
    this.executor = executor;
    const tasks = this.options.tasks;
    // A worker's connection must retry forever (BullMQ requires `maxRetriesPerRequest: null`).
    this.workerClient = this.connection.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
    const worker = new RoundWorker<RoundJobData>(tasks.queueName, (job, token) => this.process(job, token), {
      connection: this.workerClient,
      prefix: this.options.keyPrefix,
      // `job.processedBy` then names the process that runs a round.
      name: `${hostname()}:${process.pid}`,
      concurrency: tasks.concurrency,
      lockDuration: tasks.lockDurationMs,
      stalledInterval: tasks.stalledIntervalMs,
      maxStalledCount: tasks.maxStalledCount,
      // Rounds queued during an outage start about a second after Redis is back, not 15 s later.
      runRetryDelay: RECONNECT_RETRY_MS,
    });
    worker.on('failed', (job, error) => this.onFailed(job, error));
    worker.on('error', (error) => this.onWorkerError(error));
    worker.on('ready', () => (this.lastWorkerError = undefined));
    this.worker = worker;
    // Settles once the blocking connection first connected (never, while Redis stays down: nothing to guard then).
    void worker.getBackend().blockingClient?.then(
      (client) => (this.blockingClient = client),
      () => undefined,
    );
    this.stopAborts = this.connection
      .subscribe(this.options.key('task-abort'), (message) => {
        if (TASK_ID.test(message)) this.executor?.abort(message);
      })
      .catch((error: unknown) => {
        if (!this.stopping)
          this.logger.error(`Could not subscribe to task cancellations: ${(error as Error)?.message ?? String(error)}`);
        return undefined;
      });
  }

  async enqueue(taskId: string): Promise<void> {
    if (this.closing) throw McpError.internal('Tasks are not running on this server (shutting down)');
    // Unique per round: a task has one job per round it runs.
    const jobId = `${taskId}.${randomBytes(6).toString('base64url')}`;
    try {
      await withTimeout(
        this.producer().add(
          'round',
          { taskId },
          { jobId, removeOnComplete: KEEP_COMPLETED, removeOnFail: KEEP_FAILED },
        ),
        this.options.commandTimeoutMs,
      );
    } catch (error) {
      throw new McpError(
        McpErrorCode.InternalError,
        `Task queue unavailable: ${(error as Error)?.message ?? String(error)}`,
        { retryAfterSeconds: 5 },
        503,
      );
    }
  }

  async cancel(taskId: string): Promise<void> {
    this.executor?.abort(taskId);
    try {
      await this.connection.commands.publish(this.options.key('task-abort'), taskId);
    } catch (error) {
      // The task is cancelled in the store already: a round elsewhere runs on, but nothing it writes is kept.
      this.logger.warn(
        `Could not ask other replicas to abort task ${taskId}: ${(error as Error)?.message ?? String(error)}`,
      );
    }
  }

  /**
   * Stops taking rounds, waits for the rounds in flight (aborted by the drain) up to `lockDurationMs` while Redis is
   * reachable, then closes the worker and the connections it used. Always settles, within about
   * `lockDurationMs + 3 × commandTimeoutMs` at worst.
   */
  close(): Promise<void> {
    this.stopping = true;
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** As soon as the application starts shutting down, this replica takes no round any more. */
  onModuleDestroy(): void {
    this.stopping = true;
    this.stopTakingRounds();
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  /** Whether a server runs its task rounds here (`attach`): the health indicator checks the runners in use. */
  get attached(): boolean {
    return this.executor !== undefined;
  }

  /** For the health indicator: whether this replica's worker runs, and the queue's job counts. */
  async status(): Promise<McpTaskQueueStatus> {
    let worker: McpTaskQueueStatus['worker'] =
      !this.worker || this.closing ? 'closed' : this.workerClient?.status === 'ready' ? 'running' : 'disconnected';
    try {
      const counts = await withTimeout(
        this.producer().getJobCounts('waiting', 'active', 'delayed'),
        Math.min(STATUS_TIMEOUT_MS, this.options.commandTimeoutMs),
      );
      this.lastCounts = { waiting: counts.waiting ?? 0, active: counts.active ?? 0, delayed: counts.delayed ?? 0 };
    } catch {
      // Redis does not answer: the last counts known, and a worker that cannot take rounds.
      if (worker === 'running') worker = 'disconnected';
    }
    return { worker, ...this.lastCounts };
  }

  /**
   * The queue's job counts for the `nest_mcp.task.queue.depth` gauge: one `getJobCounts` call, bounded like
   * `status()`; rejects when Redis does not answer or the runner closed (the gauge then reports nothing).
   */
  async queueDepth(): Promise<McpTaskQueueDepth> {
    if (this.closing) throw new Error('The task queue is closed');
    const counts = await withTimeout(
      this.producer().getJobCounts('waiting', 'delayed', 'active'),
      Math.min(STATUS_TIMEOUT_MS, this.options.commandTimeoutMs),
    );
    return { waiting: counts.waiting ?? 0, delayed: counts.delayed ?? 0, active: counts.active ?? 0 };
  }

  /** One round: the executor runs it; a round cut short by shutdown goes back to the queue for another worker. */
  private async process(job: Job<RoundJobData>, token: string | undefined): Promise<void> {
    const taskId = roundTaskId(job.data);
    if (!taskId || !this.executor) {
      this.logger.warn(`Dropped job ${String(job.id)} of queue ${this.options.tasks.queueName}: it carries no task id`);
      return;
    }
    const outcome = await this.executor.execute(taskId);
    if (outcome === 'interrupted') {
      await job.moveToWait(token);
      // Tells BullMQ the job was moved (not completed, not failed).
      throw new WaitingError();
    }
  }

  /** A job BullMQ gave up on (its worker died more often than allowed): its task fails with the reason. */
  private onFailed(job: Job<RoundJobData> | undefined, error: Error): void {
    const taskId = job && roundTaskId(job.data);
    if (!taskId || !this.executor) return;
    const { maxStalledCount } = this.options.tasks;
    const message =
      error.message === STALLED_TOO_OFTEN
        ? `The task's worker stopped while running it more than ${maxStalledCount} time(s) (tasks.maxStalledCount: ${maxStalledCount})`
        : `The task's round failed in the queue: ${error.message}`;
    this.logger.warn(`Task ${taskId}: ${message}`);
    void this.executor.fail(taskId, { code: McpErrorCode.InternalError, message });
  }

  /** BullMQ's errors, logged once per kind until the worker is ready again (a lost Redis repeats them). */
  private onWorkerError(error: Error): void {
    if (this.stopping || error.message === this.lastWorkerError) return;
    this.lastWorkerError = error.message;
    this.logger.warn(`Task queue worker: ${error.message}`);
  }

  /**
   * The producer, made on first use. Its commands give up after one reconnection attempt or the command timeout (and
   * every call is bounded by `withTimeout`), so a caller never waits for Redis to come back; a command sent while it
   * reconnects after an outage still goes through.
   */
  private producer(): Queue<RoundJobData> {
    if (this.queue) return this.queue;
    const client = this.connection.duplicate({
      maxRetriesPerRequest: 1,
      commandTimeout: this.options.commandTimeoutMs,
    });
    this.producerClient = client;
    const queue = new Queue<RoundJobData>(this.options.tasks.queueName, {
      connection: client,
      prefix: this.options.keyPrefix,
    });
    queue.on('error', () => undefined); // the connection logs its errors once per outage
    this.queue = queue;
    return queue;
  }

  private async shutdown(): Promise<void> {
    const { commandTimeoutMs, tasks } = this.options;
    const stop = await withTimeout(this.stopAborts ?? Promise.resolve(undefined), commandTimeoutMs).catch(
      () => undefined,
    );
    stop?.();
    const worker = this.worker;
    this.stopTakingRounds();
    if (worker) {
      if (!(await jobsReleased(worker, this.workerClient, tasks.lockDurationMs))) {
        this.logger.warn('Rounds in flight did not go back to the task queue in time: they do when their locks expire');
      }
      // Forced, because BullMQ's graceful close first disconnects its blocking connection and waits for ioredis's
      // 'end' event, which never comes when that connection is waiting to reconnect (as after a Redis restart): the
      // close then hung forever, and so did a `disconnect()` after it. The rounds were waited for above.
      await withTimeout(worker.close(true), commandTimeoutMs, 'The task queue worker').catch((error: unknown) => {
        this.logger.warn(`The task queue worker did not close cleanly: ${(error as Error)?.message ?? String(error)}`);
      });
      dropBlockingConnection(this.blockingClient);
    }
    // The producer's and the worker's connections are this module's own (BullMQ leaves them open).
    await withTimeout(this.queue?.close() ?? Promise.resolve(), commandTimeoutMs).catch(() => undefined);
    await Promise.all(
      [this.workerClient, this.producerClient].map((client) => client && closeRedisClient(client, commandTimeoutMs)),
    );
  }

  /**
   * No new round here: the worker stops fetching and refuses jobs, even one that a fetch already in flight finds. That
   * fetch is cut short, so that it does not take the wake-up signal of a round going back to the queue from the
   * replicas that can run it (they would only see the round at the end of their blocking wait).
   */
  private stopTakingRounds(): void {
    const worker = this.worker;
    if (!worker || this.notTaking) return;
    this.notTaking = true;
    worker.refuseJobs();
    void worker.pause(true).catch(() => undefined);
    this.blockingClient?.disconnect();
  }
}

/** The state of the task queue, as the health indicator reports it. */
export interface McpTaskQueueStatus {
  /** This replica's BullMQ worker: taking rounds, closed (shutdown), or not connected to Redis. */
  readonly worker: 'running' | 'closed' | 'disconnected';
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
}

function roundTaskId(data: unknown): string | undefined {
  const taskId = (data as Partial<RoundJobData> | null)?.taskId;
  return typeof taskId === 'string' && TASK_ID.test(taskId) ? taskId : undefined;
}
