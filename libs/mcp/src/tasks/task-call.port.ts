import type { McpTaskBinding } from '../protocol/mcp-request-scope.interface.js';
import type { CallPort } from '../server/call-port.interface.js';
import type { CallRequest } from '../server/call-request.interface.js';
import type { RunningCall } from '../server/running-call.js';
import type { TaskRound } from './task-round.js';

/** A task round's call: a `CallRequest` with no HTTP objects, and the round that receives its messages. */
export interface TaskCallRequest extends CallRequest {
  readonly task: McpTaskBinding;
  readonly round: TaskRound;
}

/**
 * The `CallPort` of task rounds: `open` connects the call's channel to its `TaskRound` (which writes to the task
 * store) and records the call by task id, so that `tasks/cancel` and the TTL can abort its signal; `close` forgets
 * it. No client is connected, so nothing cancels a round but its task. Rounds speak the 2026-07-28 wire (the worker's
 * requests say so): the store keeps what `tasks/get` inlines.
 */
export class TaskCallPort implements CallPort<TaskCallRequest> {
  constructor(private readonly running: Map<string, RunningCall<TaskCallRequest>>) {}

  open(call: RunningCall<TaskCallRequest>): void {
    call.channel.connect(call.request.round);
    this.running.set(call.request.task.taskId, call);
  }

  close(call: RunningCall<TaskCallRequest>): void {
    const taskId = call.request.task.taskId;
    if (this.running.get(taskId) === call) this.running.delete(taskId);
  }
}
