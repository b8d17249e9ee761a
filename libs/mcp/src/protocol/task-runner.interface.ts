import type { McpTaskError } from './task-record.interface.js';

/**
 * Runs rounds of tasks in this process: `McpTaskWorker`, which admits each round through `McpCallRunner`. A runner
 * calls it; a runner in another process reaches its own worker the same way.
 */
export interface McpTaskExecutor {
  /**
   * Runs one round of the task (its handler, replayed with the answers so far) and writes how it ended to the store:
   * `input_required` with new requests, or a terminal state. Never rejects. Resolves `'interrupted'` only for a
   * durable runner (`McpTaskRunner.durable`) when this process shuts down before the round ended: the task is left
   * `working` and the runner hands the round to another worker; `'done'` otherwise (the round ran, or there was
   * nothing to run).
   */
  execute(taskId: string): Promise<'done' | 'interrupted'>;
  /** Aborts the round of the task running in this process, if any (`ctx.signal` fires). */
  abort(taskId: string): void;
  /**
   * Ends the task `failed` with `error` (unless it is terminal already) and aborts its round here, if any: for a
   * runner that gives up on a task, e.g. a round whose worker died more often than the queue allows. Never rejects.
   */
  fail(taskId: string, error: McpTaskError): Promise<void>;
}

/**
 * Decides where and when task rounds run: the queue between `tools/call` / `tasks/update` and the worker. The default
 * (`InMemoryTaskRunner`) runs them in this process at once; a queue (BullMQ) would hand the id to a worker anywhere.
 * A runner carries only task ids: everything else is in the store.
 *
 * Provide one with the `tasks.runner` option or `{ provide: MCP_TASK_RUNNER, useClass: MyRunner }`.
 */
export interface McpTaskRunner {
  /**
   * For a backend kept per named server (`McpRedis.serverOptions(options, { server })`): the server it belongs to,
   * `undefined` for one that is not a named server's. `McpModule` refuses to start a server given another server's
   * (docs/servers.md). Omit it for a backend of one server.
   */
  readonly server?: string;
  /**
   * Whether a queued round outlives this process (a durable queue that another worker reads). When `true`, a round
   * interrupted by this process's shutdown does not fail its task: the task stays `working`, `execute` resolves
   * `'interrupted'` and the runner gives the round back to its queue. Absent: rounds die with the process and the
   * shutdown drain fails their tasks.
   */
  readonly durable?: boolean;
  /** Called once at bootstrap, after the handlers were discovered, with this process's executor. */
  attach(executor: McpTaskExecutor): void;
  /** Queues a round: a new task, or one whose outstanding input was all answered. Resolves once accepted. */
  enqueue(taskId: string): Promise<void>;
  /** The task was cancelled (already `cancelled` in the store): abort its round wherever it runs. */
  cancel(taskId: string): Promise<void>;
  /**
   * Stops taking rounds (application shutdown); rounds in flight are aborted by the call runner's drain (and, for a
   * durable runner, given back to the queue).
   */
  close?(): Promise<void>;
  /**
   * The queue's job counts, for the `nest_mcp.task.queue.depth` gauge (docs/observability.md): read once per metric
   * collection while an OpenTelemetry meter is registered, so it must be one cheap call, bounded in time. A rejection
   * only skips that collection. Absent (the in-process runner): no gauge.
   */
  queueDepth?(): Promise<McpTaskQueueDepth>;
}

/** How many rounds a shared task queue holds, by job state. */
export interface McpTaskQueueDepth {
  /** Ready to run, waiting for a free worker. */
  readonly waiting: number;
  /** Scheduled for later (a retry's backoff). */
  readonly delayed: number;
  /** Running now, on any replica. */
  readonly active: number;
}

/** Injection token of the task runner. */
export const MCP_TASK_RUNNER = Symbol('nest-mcp:task-runner');
