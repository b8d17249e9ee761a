import { Logger } from '@nestjs/common';
import type { JsonObject, JsonValue } from '../protocol/json-rpc.interface.js';
import type { ChannelMessage, ChannelSink } from '../protocol/response-channel.js';
import type { McpTaskInputRequest, McpTaskRecord } from '../protocol/task-record.interface.js';
import type { McpTaskStore } from '../protocol/task-store.interface.js';
import { TaskRecordTooLargeError } from './task-record-too-large.error.js';
import { completedTask, failedTask, inputRequiredTask } from './task-transitions.js';

const MAX_STATUS_MESSAGE = 500;

/**
 * One round of a task as the call runner sees its messages: the consumer of the round's `ResponseChannel`. Progress
 * and log notifications become the task's `statusMessage` (the extension defines no notifications for tasks, so none
 * is sent); the final response becomes `input_required` with new requests, `completed` with the result, or `failed`
 * with the error. Store writes are made in order; `settled` resolves once the last one is done.
 *
 * A round that ends with an error or a tool error while `interrupted()` holds (shutdown fired its signal and the runner
 * is durable) writes nothing: the task stays `working` (`left`) and the runner gives the round to another worker, which
 * replays it. A successful result is kept even then: the work is done.
 */
export class TaskRound implements ChannelSink {
  private static readonly logger = new Logger('McpTasks');
  private writes: Promise<unknown> = Promise.resolve();
  /** Whether the round's final response arrived (anything else ends the round as `failed`). */
  answered = false;
  /** Whether the round was cut short by shutdown and its task left `working` for another worker. */
  left = false;
  /** The handler's state when it asked for input (`keepHandlerState`), written with the input requests. */
  private handlerState?: JsonValue;

  constructor(
    private readonly store: McpTaskStore,
    readonly record: McpTaskRecord,
    private readonly maxResultBytes: number,
    /** Whether an error now means "interrupted by shutdown, to be run elsewhere" (durable runners); absent: never. */
    private readonly interrupted?: () => boolean,
  ) {}

  /**
   * Keeps the handler's state of this round (`ctx.requestState`), told by the MRTR bookkeeping when the handler asks
   * for input, before the round's answer arrives: `input_required` stores it in the record for the next round.
   */
  keepHandlerState(state: JsonValue | undefined): void {
    this.handlerState = state;
  }

  /**
   * Sets the task's status message directly (`ctx.status`), as a progress or log notification would: only while the
   * task is `working`, cut at 500 characters, in order with the round's other writes.
   */
  setStatusMessage(message: string): void {
    const text = message.slice(0, MAX_STATUS_MESSAGE);
    this.write((task) => (task.status === 'working' ? { ...task, statusMessage: text } : undefined));
  }

  /** Resolves when every write of the round is done. */
  get settled(): Promise<unknown> {
    return this.writes;
  }

  next(message: ChannelMessage): void {
    if (message.type === 'notification') {
      const text = statusText(message.message.method, message.message.params);
      if (text !== undefined) this.setStatusMessage(text);
      return;
    }
    if (message.type !== 'response') return;
    this.answered = true;
    const response = message.message;
    if ('error' in response) {
      const { code, message: text, data } = response.error;
      this.end({ code, message: text, ...(data !== undefined && { data }) });
      return;
    }
    const result = response.result;
    if (result.resultType === 'input_required') this.askForInput(result);
    // A tool error after shutdown fired the signal is most likely the abort itself: the round runs again elsewhere.
    else if (!(result.isError === true && this.leave())) this.complete(result);
  }

  complete(result?: JsonObject): void {
    if (result === undefined) return;
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (bytes > this.maxResultBytes) {
      this.fail({
        code: -32603,
        message: `The task's result is too large (${bytes} bytes; tasks.maxResultBytes: ${this.maxResultBytes})`,
      });
      return;
    }
    this.write((task) => completedTask(task, result));
  }

  /**
   * The round ended with an error: the task fails with it, unless the round was interrupted by shutdown under a
   * durable runner (then the task is left `working`, `left` is set, and nothing is written).
   */
  end(error: McpTaskRecord['error'] & object): void {
    if (!this.leave()) this.fail(error);
  }

  /** Ends the task `failed` with a JSON-RPC error (unless it is terminal already). */
  fail(error: McpTaskRecord['error'] & object): void {
    this.answered = true;
    this.write(failedWith(error));
  }

  /** Leaves the task `working` if the round was interrupted by shutdown under a durable runner; whether it did. */
  private leave(): boolean {
    if (!this.interrupted?.()) return false;
    this.answered = true;
    this.left = true;
    return true;
  }

  /**
   * The handler asked for input: its keys become task keys, never one issued before (keys are unique per task). Its
   * state goes into the record in the same write (replaced, or removed when the handler cleared it).
   */
  private askForInput(result: JsonObject): void {
    const asked = (result.inputRequests ?? {}) as Record<string, { method: string; params?: JsonObject }>;
    const handlerState = this.handlerState;
    this.write((task) => {
      if (task.status !== 'working') return undefined;
      const issued = new Set(task.issuedKeys);
      const inputRequests: Record<string, McpTaskInputRequest> = {};
      for (const [handlerKey, request] of Object.entries(asked)) {
        let key = handlerKey;
        for (let n = 2; issued.has(key); n++) key = `${handlerKey}~${n}`;
        issued.add(key);
        inputRequests[key] =
          request.params === undefined
            ? { handlerKey, method: request.method }
            : { handlerKey, method: request.method, params: request.params };
      }
      return inputRequiredTask(task, inputRequests, [...issued], handlerState);
    });
  }

  private write(mutate: (task: McpTaskRecord) => McpTaskRecord | undefined): void {
    this.writes = this.writes
      .then(() => this.store.update(this.record.taskId, mutate))
      .catch((error: unknown) => {
        if (!(error instanceof TaskRecordTooLargeError)) throw error;
        // What the round asked for does not fit the task: it fails with the reason (the round's doing, not the client's).
        const limit = (error.data as { limit: number }).limit;
        return this.store.update(
          this.record.taskId,
          failedWith({
            code: -32603,
            message: `The task's input requests are too large (tasks.maxRecordBytes: ${limit})`,
          }),
        );
      })
      .catch((error: unknown) =>
        TaskRound.logger.error(`Could not update task ${this.record.taskId}`, (error as Error)?.stack ?? String(error)),
      );
  }
}

/** The change that ends a task `failed` with `error`. */
function failedWith(error: McpTaskRecord['error'] & object): (task: McpTaskRecord) => McpTaskRecord {
  return (task) => failedTask(task, error);
}

/** The status message a progress or log notification carries, if any. */
function statusText(method: string, params: JsonObject | undefined): string | undefined {
  if (!params) return undefined;
  let text: string | undefined;
  if (method === 'notifications/progress') {
    const { progress, total, message } = params;
    text =
      typeof message === 'string'
        ? message
        : total === undefined
          ? `${String(progress)}`
          : `${String(progress)}/${String(total)}`;
  } else if (method === 'notifications/message') {
    text = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
  }
  return text === undefined ? undefined : text.slice(0, MAX_STATUS_MESSAGE);
}
