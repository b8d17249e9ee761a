import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, CliExitCode } from './cli.error.js';
import type { ElicitationParams, ElicitationResponder } from './elicitation-responder.interface.js';
import type { TaskChannel, WireTask } from './task.channel.js';

/** Polling never goes faster than this, whatever the server asks. */
const MIN_POLL_MS = 100;
/** Polling when the server names no interval. */
const DEFAULT_POLL_MS = 1_000;

/** What watching a task needs. */
export interface TaskWatch {
  channel: TaskChannel;
  responder: ElicitationResponder;
  /** Every new status or status message of the task (raw server strings: the listener sanitizes). */
  onStatus(task: WireTask): void;
  /** Ctrl+C: the task is cancelled (`tasks/cancel`, once) and the watch ends with exit code 130. */
  signal: AbortSignal;
}

/**
 * Follows a task to its end: `tasks/get` at the server's `pollIntervalMs`, every outstanding input request answered
 * by the responder (`tasks/update`, each key once), and resolves with the result of a `completed` task. A `failed`
 * task rejects with its error, a `cancelled` one with that word; on abort the task is cancelled and the watch
 * rejects with the signal's reason.
 */
export async function watchTask(created: WireTask, watch: TaskWatch): Promise<Record<string, unknown>> {
  const { channel, signal } = watch;
  const answered = new Set<string>();
  let task = created;
  let shown: string | undefined;
  try {
    for (;;) {
      const seen = `${task.status}\n${task.statusMessage ?? ''}`;
      if (seen !== shown) watch.onStatus(task);
      shown = seen;
      if (task.status === 'completed') return withoutResultType(task.result ?? {});
      if (task.status === 'failed')
        throw new CliError(`task ${task.taskId} failed: ${task.error?.message ?? 'no reason given'}`);
      if (task.status === 'cancelled') throw new CliError(`task ${task.taskId} was cancelled`);
      if (task.status === 'input_required') await answerInputs(task, watch, answered);
      else await sleep(Math.max(MIN_POLL_MS, task.pollIntervalMs ?? DEFAULT_POLL_MS), undefined, { signal });
      signal.throwIfAborted();
      task = { ...task, ...((await channel.request('tasks/get', { taskId: task.taskId })) as unknown as WireTask) };
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    await channel.request('tasks/cancel', { taskId: task.taskId }).catch(() => undefined);
    throw new CliError(`interrupted: task ${task.taskId} cancelled`, CliExitCode.Interrupted);
  }
}

/** The result as the client gives any other: without the wire's `resultType`. */
function withoutResultType(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _resultType, ...rest } = result;
  return rest;
}

/** Answers the input requests not answered yet, in one `tasks/update`. */
async function answerInputs(task: WireTask, watch: TaskWatch, answered: Set<string>): Promise<void> {
  const inputResponses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
    if (answered.has(key)) continue;
    if (request.method !== 'elicitation/create')
      throw new CliError(`task ${task.taskId} asks for ${request.method}, which the CLI cannot answer`);
    answered.add(key);
    inputResponses[key] = await watch.responder.answer(key, (request.params ?? {}) as unknown as ElicitationParams);
  }
  if (Object.keys(inputResponses).length > 0)
    await watch.channel.request('tasks/update', { taskId: task.taskId, inputResponses });
  else await sleep(Math.max(MIN_POLL_MS, task.pollIntervalMs ?? DEFAULT_POLL_MS), undefined, { signal: watch.signal });
}
