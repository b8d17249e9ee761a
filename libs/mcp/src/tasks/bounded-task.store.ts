import { Inject, Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { exceedsJsonBytes } from '../protocol/json-size.util.js';
import { isTerminalTaskStatus, type McpTaskRecord } from '../protocol/task-record.interface.js';
import { MCP_TASK_STORE, type McpTaskStore } from '../protocol/task-store.interface.js';
import { TaskRecordTooLargeError } from './task-record-too-large.error.js';

/**
 * The task store as nest-mcp's own code uses it: the configured one (`MCP_TASK_STORE`: in memory, Redis or yours) with
 * the rules that do not depend on where tasks are kept, applied here once for every store.
 *
 * - While a task runs, its record holds at most `tasks.maxRecordBytes` of JSON (arguments, answers, input requests,
 *   handler state, the creating token's claims). A `create` or an `update` that would exceed it is refused with
 *   `TaskRecordTooLargeError` (`-32602`, HTTP 413 on 2026-07-28) and nothing is stored.
 * - A task that ends keeps only what `tasks/get` and `tasks/result` answer (its status, result or error, and what the
 *   access rules need: owner, tool name, scopes): its arguments, answers, input requests, handler state, issued keys
 *   and token claims are dropped in the write that ends it. Its result is bounded by `tasks.maxResultBytes`.
 *
 * So the memory a task holds for its whole TTL does not depend on what its client sent (ADR 0024; measured in
 * test/server/security-task-records.e2e-spec.ts on a real server process). Code that injects `MCP_TASK_STORE` itself gets
 * the raw store.
 */
@Injectable()
export class BoundedTaskStore implements McpTaskStore {
  private readonly maxRecordBytes: number;

  constructor(
    @Inject(MCP_TASK_STORE) private readonly store: McpTaskStore,
    options: McpResolvedOptions,
  ) {
    this.maxRecordBytes = options.tasks.maxRecordBytes;
  }

  get sharedAcrossReplicas(): boolean | undefined {
    return this.store.sharedAcrossReplicas;
  }

  create(record: McpTaskRecord): Promise<void> {
    if (exceedsJsonBytes(record, this.maxRecordBytes))
      return Promise.reject(new TaskRecordTooLargeError(this.maxRecordBytes));
    return this.store.create(record);
  }

  get(taskId: string, owner: string | null): Promise<McpTaskRecord | undefined> {
    return this.store.get(taskId, owner);
  }

  load(taskId: string): Promise<McpTaskRecord | undefined> {
    return this.store.load(taskId);
  }

  update(
    taskId: string,
    mutate: (current: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<McpTaskRecord | undefined> {
    return this.store.update(taskId, (current) => {
      const next = mutate(current);
      if (next === undefined) return undefined;
      if (isTerminalTaskStatus(next.status)) return endedRecord(next);
      // Thrown inside `mutate`: the store saves nothing and its `update` rejects with it.
      if (exceedsJsonBytes(next, this.maxRecordBytes)) throw new TaskRecordTooLargeError(this.maxRecordBytes);
      return next;
    });
  }

  list(
    owner: string | null,
    page: { cursor?: string; limit: number },
  ): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }> {
    return this.store.list(owner, page);
  }

  watch(listener: (record: McpTaskRecord) => void): () => void {
    return this.store.watch(listener);
  }
}

/** What an ended task keeps: everything but what only running it needed. */
function endedRecord(record: McpTaskRecord): McpTaskRecord {
  const { arguments: _arguments, ...params } = record.params;
  const { inputRequests: _inputRequests, handlerState: _handlerState, accessToken: _accessToken, ...kept } = record;
  return { ...kept, params, answers: {}, issuedKeys: [] };
}
