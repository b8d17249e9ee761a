import type { JsonObject, JsonValue } from '../protocol/json-rpc.interface.js';
import type { McpTaskError, McpTaskInputRequest, McpTaskRecord } from '../protocol/task-record.interface.js';

/*
 * The changes of a task's record, one function per transition, for every writer on both wires (the worker and its
 * rounds, the 2026 `tasks/*` methods, the 2025-11-25 face): each says once which fields a status keeps and which it
 * drops. An ended task loses more when it is stored (`BoundedTaskStore`: what only running it needed).
 */

/** The task ends `failed` with `error` (its status message is the error's); nothing is outstanding any more. */
export function failedTask(task: McpTaskRecord, error: McpTaskError): McpTaskRecord {
  return {
    ...task,
    status: 'failed',
    error,
    statusMessage: error.message,
    inputRequests: undefined,
    handlerState: undefined,
  };
}

/** The task ends `cancelled`, with `statusMessage` (each wire words it its own way). */
export function cancelledTask(task: McpTaskRecord, statusMessage: string): McpTaskRecord {
  return { ...task, status: 'cancelled', statusMessage, inputRequests: undefined, handlerState: undefined };
}

/** The task ends `completed` with its result (in the 2026-07-28 shapes, as its rounds answer). */
export function completedTask(task: McpTaskRecord, result: JsonObject): McpTaskRecord {
  return { ...task, status: 'completed', result, inputRequests: undefined, handlerState: undefined };
}

/** The task waits for input: the requests now outstanding, every key ever issued, the handler's state to resume with. */
export function inputRequiredTask(
  task: McpTaskRecord,
  inputRequests: Record<string, McpTaskInputRequest>,
  issuedKeys: readonly string[],
  handlerState: JsonValue | undefined,
): McpTaskRecord {
  return { ...task, status: 'input_required', inputRequests, issuedKeys: [...issuedKeys], handlerState };
}

/**
 * The task with `answers` (by handler key) and the input requests still outstanding: it works again once none is
 * (`status: 'working'`, its next round to be queued), and keeps waiting otherwise.
 */
export function answeredTask(
  task: McpTaskRecord,
  answers: Record<string, unknown>,
  outstanding: Record<string, McpTaskInputRequest>,
): McpTaskRecord {
  if (Object.keys(outstanding).length > 0) return { ...task, answers, inputRequests: outstanding };
  return { ...task, answers, inputRequests: undefined, status: 'working' };
}
