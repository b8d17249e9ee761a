import { Injectable } from '@nestjs/common';
import { McpError } from '../protocol/mcp.error.js';
import type { McpTaskExecutor, McpTaskRunner } from '../protocol/task-runner.interface.js';

/**
 * The default task runner: every round runs in this process, started on the next turn of the event loop (so the
 * `tools/call` that created the task answers first). Nothing is queued durably: rounds of a process that stops are
 * lost, and their tasks end `failed` by the shutdown drain or expire with their TTL.
 */
@Injectable()
export class InMemoryTaskRunner implements McpTaskRunner {
  private executor?: McpTaskExecutor;
  private closed = false;

  attach(executor: McpTaskExecutor): void {
    this.executor = executor;
  }

  async enqueue(taskId: string): Promise<void> {
    const executor = this.executor;
    if (!executor || this.closed) throw McpError.internal('Tasks are not running on this server (shutting down)');
    setImmediate(() => void executor.execute(taskId));
  }

  async cancel(taskId: string): Promise<void> {
    this.executor?.abort(taskId);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
