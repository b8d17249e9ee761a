import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { McpError } from '../protocol/mcp.error.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { isTerminalTaskStatus, type McpTaskRecord } from '../protocol/task-record.interface.js';
import type { McpTaskStore } from '../protocol/task-store.interface.js';

/** The bounds of an `InMemoryTaskStore`. */
export interface InMemoryTaskStoreLimits {
  /** Most tasks one owner keeps (anonymous callers share one owner). */
  readonly maxTasksPerOwner: number;
  /** Most tasks kept in total. */
  readonly maxTasks: number;
  /** How often expired tasks are swept, in milliseconds. Default 60 s. */
  readonly sweepIntervalMs?: number;
}

const ANONYMOUS = '\u0000anonymous';
const RETRY_AFTER_SECONDS = 30;

/**
 * The default task store: tasks in this process's memory, for one replica (dev, tests, stdio, a single instance).
 * Reads see writes at once (creation is strongly consistent, `tasks/update` read-your-writes). Bounded per owner and
 * in total; a task is readable until `createdAt + ttlMs`, then answers like an unknown one and is swept. State dies
 * with the process; a shared store (Redis, SQL) serves several replicas.
 */
@Injectable()
export class InMemoryTaskStore implements McpTaskStore, OnModuleDestroy {
  private readonly tasks = new Map<string, McpTaskRecord>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly listeners = new Set<(record: McpTaskRecord) => void>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly limits: InMemoryTaskStoreLimits) {
    this.sweeper = setInterval(() => this.sweep(Date.now()), limits.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
  }

  async create(record: McpTaskRecord): Promise<void> {
    const now = Date.now();
    const key = ownerKey(record.owner);
    let owned = this.byOwner.get(key);
    // Expired tasks make room before a refusal.
    if ((owned?.size ?? 0) >= this.limits.maxTasksPerOwner || this.tasks.size >= this.limits.maxTasks) this.sweep(now);
    owned = this.byOwner.get(key);
    if ((owned?.size ?? 0) >= this.limits.maxTasksPerOwner) {
      throw tooMany(
        `Too many tasks for this caller (tasks.maxTasksPerOwner: ${this.limits.maxTasksPerOwner}); wait for some to expire`,
      );
    }
    if (this.tasks.size >= this.limits.maxTasks)
      throw tooMany(`Too many tasks on this server (tasks.maxTasks: ${this.limits.maxTasks})`);
    if (this.tasks.has(record.taskId)) throw McpError.internal('Task id collision');
    const stored = structuredClone(record);
    this.tasks.set(record.taskId, stored);
    if (!owned) this.byOwner.set(key, (owned = new Set()));
    owned.add(record.taskId);
    this.emit(stored);
  }

  async get(taskId: string, owner: string | null): Promise<McpTaskRecord | undefined> {
    const record = this.live(taskId, Date.now());
    return record && record.owner === owner ? structuredClone(record) : undefined;
  }

  async load(taskId: string): Promise<McpTaskRecord | undefined> {
    const record = this.live(taskId, Date.now());
    return record && structuredClone(record);
  }

  async update(
    taskId: string,
    mutate: (current: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<McpTaskRecord | undefined> {
    const now = Date.now();
    const current = this.live(taskId, now);
    if (!current) return undefined;
    if (isTerminalTaskStatus(current.status)) return structuredClone(current);
    const next = mutate(structuredClone(current));
    if (!next) return structuredClone(current);
    const stored: McpTaskRecord = {
      ...structuredClone(next),
      taskId: current.taskId,
      owner: current.owner,
      version: current.version + 1,
      lastUpdatedAt: now,
    };
    this.tasks.set(taskId, stored);
    this.emit(stored);
    return structuredClone(stored);
  }

  async list(
    owner: string | null,
    page: { cursor?: string; limit: number },
  ): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }> {
    const now = Date.now();
    const ids = [...(this.byOwner.get(ownerKey(owner)) ?? [])].reverse();
    const live = ids.map((id) => this.live(id, now)).filter((record): record is McpTaskRecord => record !== undefined);
    const start = page.cursor === undefined ? 0 : live.findIndex((record) => record.taskId === page.cursor) + 1;
    if (page.cursor !== undefined && start === 0) throw McpError.invalidParams('Invalid params: unknown cursor');
    const tasks = live.slice(start, start + page.limit).map((record) => structuredClone(record));
    const nextCursor = start + page.limit < live.length ? tasks[tasks.length - 1]?.taskId : undefined;
    return nextCursor === undefined ? { tasks } : { tasks, nextCursor };
  }

  watch(listener: (record: McpTaskRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drops every task past its lifetime. */
  sweep(now: number): void {
    for (const record of this.tasks.values()) if (expired(record, now)) this.remove(record);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  private live(taskId: string, now: number): McpTaskRecord | undefined {
    if (typeof taskId !== 'string') return undefined;
    const record = this.tasks.get(taskId);
    if (!record) return undefined;
    if (!expired(record, now)) return record;
    this.remove(record);
    return undefined;
  }

  private remove(record: McpTaskRecord): void {
    this.tasks.delete(record.taskId);
    const key = ownerKey(record.owner);
    const owned = this.byOwner.get(key);
    owned?.delete(record.taskId);
    if (owned?.size === 0) this.byOwner.delete(key);
  }

  private emit(record: McpTaskRecord): void {
    for (const listener of this.listeners) {
      try {
        listener(structuredClone(record));
      } catch {
        // A listener's failure is its own; the write is committed.
      }
    }
  }
}

function ownerKey(owner: string | null): string {
  return owner ?? ANONYMOUS;
}

function expired(record: McpTaskRecord, now: number): boolean {
  return record.ttlMs !== null && now >= record.createdAt + record.ttlMs;
}

function tooMany(message: string): McpError {
  return new McpError(McpErrorCode.InternalError, message, { retryAfterSeconds: RETRY_AFTER_SECONDS }, 429);
}
