import type { McpTaskRecord } from './task-record.interface.js';

/**
 * Where tasks live. The default keeps them in memory (`InMemoryTaskStore`); a shared store (Redis, SQL) lets any
 * replica serve `tasks/*` and any worker run them. Rules every store keeps:
 *
 * - `create` resolves only once `get` of the id succeeds wherever it is called (ext-tasks: "Task Creation");
 * - `get` answers `undefined` for an unknown, expired or foreign task alike, so ids cannot be probed;
 * - `update` is conditional: a task in a terminal state is never changed again (its mutation is not applied);
 * - what a store keeps is bounded (tasks per owner, tasks in total, result size) and expired tasks are swept.
 *
 * Provide one with the `tasks.store` option or `{ provide: MCP_TASK_STORE, useClass: MyStore }`.
 */
export interface McpTaskStore {
  /**
   * For a backend kept per named server (`McpRedis.serverOptions(options, { server })`): the server it belongs to,
   * `undefined` for one that is not a named server's. `McpModule` refuses to start a server given another server's
   * (docs/servers.md). Omit it for a backend of one server.
   */
  readonly server?: string;
  /**
   * `true` when the store serves several replicas (Redis, SQL…). `McpModule` then refuses to start without
   * `requestState.keys`: a task's input rounds may be answered through any replica, which must open its states.
   */
  readonly sharedAcrossReplicas?: boolean;
  /**
   * Saves a new task. Rejects with an `McpError` (HTTP 429, `data.retryAfterSeconds`) when its owner, or the store,
   * holds as many tasks as allowed.
   */
  create(record: McpTaskRecord): Promise<void>;
  /** The task if it exists, has not expired and belongs to `owner` (`null`: anonymous); otherwise `undefined`. */
  get(taskId: string, owner: string | null): Promise<McpTaskRecord | undefined>;
  /** The task whoever owns it, for the worker that runs it; `undefined` when unknown or expired. */
  load(taskId: string): Promise<McpTaskRecord | undefined>;
  /**
   * Applies `mutate` to the current record atomically and saves what it returns (with `version` + 1 and
   * `lastUpdatedAt` set by the store). `mutate` returning `undefined` changes nothing; it is not called for a task in a
   * terminal state. Resolves with the record as it is afterwards, or `undefined` when the task is unknown or expired.
   * `mutate` may run more than once (optimistic stores retry): keep it pure.
   */
  update(
    taskId: string,
    mutate: (current: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<McpTaskRecord | undefined>;
  /** The owner's tasks, newest first, a page at a time (the 2025-11-25 `tasks/list`). */
  list(
    owner: string | null,
    page: { cursor?: string; limit: number },
  ): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }>;
  /**
   * Hears every committed change (create, update), on every replica: for `notifications/tasks` and the 2025-11-25
   * `notifications/tasks/status`. Returns the function that stops listening.
   */
  watch(listener: (record: McpTaskRecord) => void): () => void;
}

/** Injection token of the task store. */
export const MCP_TASK_STORE = Symbol('nest-mcp:task-store');
