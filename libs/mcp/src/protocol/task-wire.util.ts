import type { JsonObject } from './json-rpc.interface.js';
import type { McpClientCapabilities } from './mcp-wire.interface.js';
import { TASKS_EXTENSION } from './task.constants.js';
import type { McpTaskRecord } from './task-record.interface.js';

/** Whether a request declared the tasks extension (ext-tasks 2026-07-28: judged from this request only). */
export function declaresTasks(capabilities: McpClientCapabilities): boolean {
  const value = capabilities.extensions?.[TASKS_EXTENSION];
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `requiredCapabilities` of a `-32021` for the tasks extension. */
export const TASKS_REQUIRED_CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } } as const;

/** The `Task` fields of a record on the 2026-07-28 wire (`ttlMs`, `pollIntervalMs`, ISO 8601 times). */
export function taskFields(record: McpTaskRecord): JsonObject {
  const fields: JsonObject = {
    taskId: record.taskId,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) fields.statusMessage = record.statusMessage;
  return fields;
}

/** `CreateTaskResult`: flat, `resultType: "task"`, no `result`, `error`, `inputRequests` or `requestState`. */
export function createTaskResult(record: McpTaskRecord): JsonObject {
  return { resultType: 'task', ...taskFields(record) };
}

/**
 * `DetailedTask` (the body of `tasks/get` and `notifications/tasks`): the task, with every outstanding input request
 * while `input_required`, the result when `completed`, the error when `failed`.
 */
export function detailedTask(record: McpTaskRecord): JsonObject {
  const task = taskFields(record);
  if (record.status === 'input_required' && record.inputRequests) {
    const inputRequests: JsonObject = {};
    for (const [key, request] of Object.entries(record.inputRequests)) {
      inputRequests[key] =
        request.params === undefined ? { method: request.method } : { method: request.method, params: request.params };
    }
    task.inputRequests = inputRequests;
  }
  if (record.status === 'completed' && record.result) task.result = record.result;
  if (record.status === 'failed' && record.error) task.error = { ...record.error } as JsonObject;
  return task;
}
