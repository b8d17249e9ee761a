import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';

/**
 * A task that is not over would hold more than `tasks.maxRecordBytes` of JSON: `-32602` with HTTP 413 (on 2026-07-28;
 * the 2025-11-25 wire answers its errors with 200), as a request the server will not keep for its size is answered
 * (`maxInitializeBytes` is the other). Thrown by `BoundedTaskStore` when a task is created (its arguments,
 * `beforeTask` answers, token claims) or changed (answers, input requests); nothing is stored. ADR 0024.
 */
export class TaskRecordTooLargeError extends McpError {
  constructor(limit: number) {
    super(
      McpErrorCode.InvalidParams,
      `Invalid params: a task may hold at most ${limit} bytes of JSON while it runs (its arguments, answers and input requests; option tasks.maxRecordBytes)`,
      { limit },
      413,
    );
    this.name = 'TaskRecordTooLargeError';
  }
}
