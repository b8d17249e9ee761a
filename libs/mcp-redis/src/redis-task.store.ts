import { createHash } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { McpError, McpErrorCode } from 'nest-mcp';
import { isTerminalTaskStatus, type McpTaskRecord, type McpTaskStore } from 'nest-mcp/backend';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';
import { CREATE_TASK, PRUNE_OWNER_TASKS, UPDATE_TASK } from './task-store.scripts.js';
import { parseTaskRecord } from './task-record.parser.js';

/** Seconds a caller refused for too many tasks is told to wait (as `InMemoryTaskStore` says). */
const FULL_RETRY_AFTER_SECONDS = 30;
/** Seconds a caller is told to wait when Redis does not answer. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
/** Compare-and-set attempts of one `update` before it gives up (each conflict means another writer committed). */
const MAX_UPDATE_ATTEMPTS = 20;
/** Records read per `MGET` when listing. */
const LIST_BATCH = 200;

/**
 * Tasks in Redis, shared by every replica. A task is one JSON string under `<prefix>:task:<id>` that Redis expires at
 * `createdAt + ttlMs` (no expiry when `ttlMs` is `null`), and three sorted sets index the ids: each owner's by expiry
 * and by creation order, and every id by expiry. Expired entries are dropped from them (by score) before anything is
 * counted, so the bounds (`tasks.maxTasksPerOwner`, `tasks.maxTasks`) never need a scan of every task.
 *
 * - `create` is one Lua script: bounds, collision check, write, indexes and the change notice, atomically.
 * - `update` is optimistic: read, run `mutate` here, then a Lua compare-and-set on `version` (never on a terminal
 *   task) that keeps the key's expiry; a conflict re-reads and retries.
 * - Every committed change is published on `<prefix>:task-changes`, so `watch` hears changes made on any replica.
 * - When Redis does not answer, every method rejects within the command timeout with `-32603` and HTTP 503
 *   ("Task store unavailable: …"), never hangs.
 *
 * Redis must not evict keys (`maxmemory-policy noeviction`): an evicted task would still count against its owner's
 * bound until its expiry.
 */
@Injectable()
export class RedisTaskStore implements McpTaskStore, OnModuleDestroy {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;
  private readonly logger = new Logger('McpRedisTasks');
  private readonly listeners = new Set<(record: McpTaskRecord) => void>();
  private subscription?: Promise<(() => void) | undefined>;
  private readonly channel: string;
  /** Set once the application shuts down. */
  private stopping = false;

  /** @internal Created by Nest's injector (`McpRedisModule`), from the module's internal connection and options. */
  constructor(
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {
    this.channel = options.key('task-changes');
  }

  /** The named server this is of (`McpRedis.forServer`); `undefined` for the module's own. */
  get server(): string | undefined {
    return this.options.server;
  }

  async create(record: McpTaskRecord): Promise<void> {
    const expiry = record.ttlMs === null ? '+inf' : String(record.createdAt + record.ttlMs);
    const owner = this.ownerKeys(record.owner);
    const { maxTasksPerOwner, maxTasks } = this.options.tasks;
    const outcome = await this.call(() =>
      CREATE_TASK.run(
        this.connection.commands,
        [
          this.recordKey(record.taskId),
          owner.byExpiry,
          owner.byCreation,
          this.options.key('task-index', 'all'),
          this.options.key('task-index', 'seq'),
        ],
        [Date.now(), JSON.stringify(record), record.taskId, expiry, maxTasksPerOwner, maxTasks, this.channel],
      ),
    );
    if (outcome === 'ok') return;
    if (outcome === 'owner') {
      throw tooMany(
        `Too many tasks for this caller (tasks.maxTasksPerOwner: ${maxTasksPerOwner}); wait for some to expire`,
      );
    }
    if (outcome === 'total') throw tooMany(`Too many tasks on this server (tasks.maxTasks: ${maxTasks})`);
    throw McpError.internal('Task id collision');
  }

  async get(taskId: string, owner: string | null): Promise<McpTaskRecord | undefined> {
    const record = await this.read(taskId);
    return record && record.owner === owner ? record : undefined;
  }

  load(taskId: string): Promise<McpTaskRecord | undefined> {
    return this.read(taskId);
  }

  async update(
    taskId: string,
    mutate: (current: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<McpTaskRecord | undefined> {
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const current = await this.read(taskId);
      if (!current) return undefined;
      if (isTerminalTaskStatus(current.status)) return current;
      const next = mutate(structuredClone(current));
      if (!next) return current;
      const stored: McpTaskRecord = {
        ...next,
        taskId: current.taskId,
        owner: current.owner,
        version: current.version + 1,
        lastUpdatedAt: Date.now(),
      };
      const json = JSON.stringify(stored);
      const outcome = await this.call(() =>
        UPDATE_TASK.run(this.connection.commands, [this.recordKey(taskId)], [current.version, json, this.channel]),
      );
      if (outcome === 'ok') return JSON.parse(json) as McpTaskRecord;
      if (outcome === 'gone') return undefined;
      // 'conflict': another writer committed first; read its version and apply `mutate` to it.
    }
    throw new McpError(
      McpErrorCode.InternalError,
      `Task store busy: task ${taskId} changed ${MAX_UPDATE_ATTEMPTS} times during one update`,
      { retryAfterSeconds: 1 },
      503,
    );
  }

  async list(
    owner: string | null,
    page: { cursor?: string; limit: number },
  ): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }> {
    const keys = this.ownerKeys(owner);
    const now = Date.now();
    const ids = await this.call(async () => {
      await PRUNE_OWNER_TASKS.run(this.connection.commands, [keys.byExpiry, keys.byExpiry, keys.byCreation], [now]);
      return this.connection.commands.zrevrange(keys.byCreation, 0, -1);
    });
    const live: McpTaskRecord[] = [];
    for (let start = 0; start < ids.length; start += LIST_BATCH) {
      const batch = ids.slice(start, start + LIST_BATCH);
      const raws = await this.call(() => this.connection.commands.mget(batch.map((id) => this.recordKey(id))));
      for (const raw of raws) {
        const record = raw === null ? undefined : this.parse(raw, now);
        if (record && record.owner === owner) live.push(record);
      }
    }
    const first = page.cursor === undefined ? 0 : live.findIndex((record) => record.taskId === page.cursor) + 1;
    if (page.cursor !== undefined && first === 0) throw McpError.invalidParams('Invalid params: unknown cursor');
    const tasks = live.slice(first, first + page.limit);
    const nextCursor = first + page.limit < live.length ? tasks[tasks.length - 1]?.taskId : undefined;
    return nextCursor === undefined ? { tasks } : { tasks, nextCursor };
  }

  watch(listener: (record: McpTaskRecord) => void): () => void {
    this.listeners.add(listener);
    this.subscription ??= this.connection
      .subscribe(this.channel, (message) => this.receive(message))
      .catch((error: unknown) => {
        // Shutting down while Redis was unreachable: the subscription was given up on purpose.
        if (!this.stopping)
          this.logger.error(`Could not subscribe to task changes: ${(error as Error)?.message ?? String(error)}`);
        // The next `watch` tries again.
        this.subscription = undefined;
        return undefined;
      });
    return () => this.listeners.delete(listener);
  }

  /**
   * Stops listening without waiting: Nest destroys this store before the connection, and a subscription still waiting
   * for a Redis that is down would keep shutdown waiting forever (the connection rejects it when it closes).
   */
  onModuleDestroy(): void {
    this.stopping = true;
    void this.subscription?.then((stop) => stop?.());
  }

  /** The task if its key exists and it has not expired (Redis expires it; this clock decides at the boundary). */
  private async read(taskId: string): Promise<McpTaskRecord | undefined> {
    if (typeof taskId !== 'string' || taskId.length === 0) return undefined;
    const raw = await this.call(() => this.connection.commands.get(this.recordKey(taskId)));
    return raw === null ? undefined : this.parse(raw, Date.now());
  }

  private parse(raw: string, now: number): McpTaskRecord | undefined {
    const record = parseTaskRecord(raw);
    if (!record) {
      this.logger.warn('Ignored a task record that is not valid JSON of a task');
      return undefined;
    }
    return record.ttlMs !== null && now >= record.createdAt + record.ttlMs ? undefined : record;
  }

  /** A change published by a replica (this one included): handed to every listener, if it is a task record. */
  private receive(message: string): void {
    const record = parseTaskRecord(message);
    if (!record) {
      this.logger.warn(`Ignored a message on ${this.channel} that is not a task record`);
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(structuredClone(record));
      } catch {
        // A listener's failure is its own; the change is committed.
      }
    }
  }

  /** Runs Redis commands; a Redis failure becomes a 503 `McpError` (protocol errors pass through). */
  private async call<T>(commands: () => Promise<T>): Promise<T> {
    try {
      return await commands();
    } catch (error) {
      if (error instanceof McpError) throw error;
      throw new McpError(
        McpErrorCode.InternalError,
        `Task store unavailable: ${(error as Error)?.message ?? String(error)}`,
        { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS },
        503,
      );
    }
  }

  private recordKey(taskId: string): string {
    return this.options.key('task', taskId);
  }

  /** An owner's two indexes; the owner is hashed so that any principal makes a short, safe key. */
  private ownerKeys(owner: string | null): { byExpiry: string; byCreation: string } {
    const id = owner === null ? 'anonymous' : createHash('sha256').update(owner).digest('base64url');
    return {
      byExpiry: this.options.key('task-index', 'owner', id, 'expiry'),
      byCreation: this.options.key('task-index', 'owner', id, 'created'),
    };
  }
}

function tooMany(message: string): McpError {
  return new McpError(McpErrorCode.InternalError, message, { retryAfterSeconds: FULL_RETRY_AFTER_SECONDS }, 429);
}
