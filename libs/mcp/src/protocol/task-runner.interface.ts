/**
 * Runs rounds of tasks in this process: `McpTaskWorker`, which admits each round through `McpCallRunner`. A runner
 * calls it; a runner in another process reaches its own worker the same way.
 */
export interface McpTaskExecutor {
  /**
   * Runs one round of the task (its handler, replayed with the answers so far) and writes how it ended to the store:
   * `input_required` with new requests, or a terminal state. Never rejects.
   */
  execute(taskId: string): Promise<void>;
  /** Aborts the round of the task running in this process, if any (`ctx.signal` fires). */
  abort(taskId: string): void;
}

/**
 * Decides where and when task rounds run: the queue between `tools/call` / `tasks/update` and the worker. The default
 * (`InMemoryTaskRunner`) runs them in this process at once; a queue (BullMQ) would hand the id to a worker anywhere.
 * A runner carries only task ids: everything else is in the store.
 *
 * Provide one with the `tasks.runner` option or `{ provide: MCP_TASK_RUNNER, useClass: MyRunner }`.
 */
export interface McpTaskRunner {
  /** Called once at bootstrap with this process's executor. */
  attach(executor: McpTaskExecutor): void;
  /** Queues a round: a new task, or one whose outstanding input was all answered. Resolves once accepted. */
  enqueue(taskId: string): Promise<void>;
  /** The task was cancelled (already `cancelled` in the store): abort its round wherever it runs. */
  cancel(taskId: string): Promise<void>;
  /** Stops taking rounds (application shutdown); rounds in flight are aborted by the call runner's drain. */
  close?(): Promise<void>;
}

/** Injection token of the task runner. */
export const MCP_TASK_RUNNER = Symbol('nest-mcp:task-runner');
