import type { Logger } from '@nestjs/common';
import type { ToolEntry } from '../discovery/registry-entries.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import type { McpTaskRecord } from '../protocol/task-record.interface.js';
import type { McpTaskRunner } from '../protocol/task-runner.interface.js';
import type { McpTaskStore } from '../protocol/task-store.interface.js';
import { newTaskId } from './task-id.util.js';
import { failedTask } from './task-transitions.js';

/** What differs between the wires when a task is created. */
export interface NewTaskOptions {
  readonly wire: McpTaskRecord['wire'];
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** Answers gathered before the task existed (`beforeTask`), by key. */
  readonly answers: Record<string, unknown>;
}

/**
 * The record of a new task for the call of `tool` in `scope`, `working`: everything a worker in any process needs to
 * run it. The caller has run the tool's guards against this request (`authorizedAtCreation`). The tool's scopes and
 * the request's verified token go with it: `tasks/*` require the scopes, and rounds run as the same caller.
 */
export function newTaskRecord(scope: McpRequestScope, tool: ToolEntry, options: NewTaskOptions): McpTaskRecord {
  const now = Date.now();
  const meta = scope.meta;
  const args = scope.params.arguments;
  const toolName = tool.definition.name;
  return {
    taskId: newTaskId(),
    owner: scope.principal ?? null,
    wire: options.wire,
    method: scope.method,
    // The arguments as the client sent them: the round validates them again, as every call does.
    params: args === undefined ? { name: toolName } : { name: toolName, arguments: args },
    clientCapabilities: meta.clientCapabilities,
    protocolVersion: meta.protocolVersion,
    ...(meta.clientInfo && { clientInfo: meta.clientInfo }),
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: options.ttlMs,
    pollIntervalMs: options.pollIntervalMs,
    answers: options.answers,
    issuedKeys: [],
    authorizedAtCreation: true,
    requiredScopes: [...tool.summary.scopes],
    ...(scope.accessToken && { accessToken: scope.accessToken }),
    ...(scope.traceContext && { traceContext: scope.traceContext }),
    version: 1,
  };
}

/**
 * Queues a stored task. A runner that cannot take it fails the task (it stays readable, `failed`, with the reason)
 * rather than leaving it `working` forever.
 */
export async function queueTask(
  record: McpTaskRecord,
  store: McpTaskStore,
  runner: McpTaskRunner,
  logger: Logger,
): Promise<void> {
  try {
    await runner.enqueue(record.taskId);
  } catch (error) {
    const message = error instanceof McpError ? error.message : 'The task could not be queued';
    if (!(error instanceof McpError))
      logger.error(`Task ${record.taskId} could not be queued`, (error as Error)?.stack ?? String(error));
    await store.update(record.taskId, (task) => failedTask(task, { code: McpErrorCode.InternalError, message }));
  }
}
