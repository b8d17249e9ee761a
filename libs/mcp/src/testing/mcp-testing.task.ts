import type { McpCallToolResult } from '../protocol/mcp-wire.interface.js';
import type { McpTestingAnswer, McpTestingInputRequest } from './mcp-testing-input.interface.js';
import type { McpTestingCallOptions } from './mcp-testing-options.interface.js';
import { McpTestingError } from './mcp-testing.error.js';
import type { McpCallRecord } from './mcp-testing.result.js';
import { McpToolCallResult } from './mcp-tool-call.result.js';

/** The status of a task (ext-tasks 2026-07-28). `completed`, `failed` and `cancelled` are terminal. */
export type McpTestingTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as `tasks/get` last showed it (a `DetailedTask`), with its times as sent (ISO 8601). */
export interface McpTestingTaskState {
  taskId: string;
  status: McpTestingTaskStatus;
  /** The handler's latest progress or log message (`ctx.…Progress().emit`, `ctx.log`). */
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  /** How often the server suggests polling; `result()` polls at this interval. */
  pollIntervalMs: number;
  /** The outstanding input requests while `input_required`, by task key (answer them with `answer(key, …)`). */
  inputRequests?: Record<
    string,
    { method: McpTestingInputRequest['method']; params?: McpTestingInputRequest['params'] }
  >;
  /** The tool's result when `completed`. */
  result?: McpCallToolResult;
  /** The JSON-RPC error when `failed`. */
  error?: { code: number; message: string; data?: unknown };
}

/** Options of `McpTestingTask.result()`. */
export interface McpTestingTaskResultOptions {
  /** Gives up (rejects) when the task is not terminal after this long. Default 10,000 ms. */
  timeoutMs?: number;
  /** Answers for the task's input requests, used before the client's own (`answerWith`, `onElicit`). */
  answers?: McpTestingAnswer[];
  /** Overrides the poll interval the server suggested (`pollIntervalMs`), e.g. to poll faster in a test. */
  pollIntervalMs?: number;
}

/**
 * @internal What a task handle needs from its client: one request with the tasks extension declared, and the answer
 * to an input request from the client's scripted answers or handlers.
 */
export interface McpTestingTaskPort {
  request(
    method: string,
    params: Record<string, unknown>,
    options: McpTestingCallOptions,
  ): Promise<Record<string, unknown>>;
  answer(request: McpTestingInputRequest, callAnswers: McpTestingAnswer[]): Promise<McpTestingAnswer>;
}

const TERMINAL: ReadonlySet<McpTestingTaskStatus> = new Set(['completed', 'failed', 'cancelled']);
const DEFAULT_RESULT_TIMEOUT_MS = 10_000;

/**
 * A task started with `client.startTask(...)`: polls it (`tasks/get`), answers its input requests (`tasks/update`),
 * cancels it (`tasks/cancel`), or awaits its terminal state. Every request declares the tasks extension and carries
 * the options the task was started with (headers, principal, user), so it reaches the same owner's task.
 *
 * @example
 * ```ts
 * const task = await client.startTask('incident_report', { incident: 'INC-7' });
 * await task.waitFor('input_required');
 * await task.answer('logs', { action: 'accept', content: { confirm: true } });
 * expect((await task.result()).text()).toBe('report INC-7: with logs');
 * ```
 */
export class McpTestingTask {
  private current: McpTestingTaskState;
  private readonly record: McpCallRecord = { notifications: [], inputRequests: [], rounds: 0 };
  private rounds = 0;

  private constructor(
    private readonly port: McpTestingTaskPort,
    created: McpTestingTaskState,
    private readonly options: McpTestingCallOptions,
  ) {
    this.current = created;
  }

  /** @internal */
  static of(port: McpTestingTaskPort, created: McpTestingTaskState, options: McpTestingCallOptions): McpTestingTask {
    return new McpTestingTask(port, created, options);
  }

  /** The task's id. */
  get taskId(): string {
    return this.current.taskId;
  }

  /** The status last seen (at creation, or by the latest `poll()`). */
  get status(): McpTestingTaskStatus {
    return this.current.status;
  }

  /** The task as last seen (at creation, or by the latest `poll()`). */
  get state(): McpTestingTaskState {
    return this.current;
  }

  /** Whether the status last seen is terminal (`completed`, `failed`, `cancelled`). */
  get done(): boolean {
    return TERMINAL.has(this.current.status);
  }

  /** `tasks/get`: the task now. An unknown, expired or foreign task throws `McpTestingError` (`-32602`). */
  async poll(): Promise<McpTestingTaskState> {
    this.current = (await this.port.request(
      'tasks/get',
      { taskId: this.taskId },
      this.options,
    )) as unknown as McpTestingTaskState;
    return this.current;
  }

  /**
   * `tasks/update`: answers the outstanding input request `key` (or several at once, by key). Keys that are not
   * outstanding are ignored by the server; an answer not shaped like its request's result throws (`-32602`).
   */
  answer(key: string, response: McpTestingAnswer): Promise<void>;
  answer(responses: Record<string, McpTestingAnswer>): Promise<void>;
  async answer(keyOrResponses: string | Record<string, McpTestingAnswer>, response?: McpTestingAnswer): Promise<void> {
    const inputResponses = typeof keyOrResponses === 'string' ? { [keyOrResponses]: response ?? {} } : keyOrResponses;
    await this.port.request('tasks/update', { taskId: this.taskId, inputResponses }, this.options);
  }

  /** `tasks/cancel`: the task becomes `cancelled` (unless already terminal) and its handler's `ctx.signal` fires. */
  async cancel(): Promise<void> {
    await this.port.request('tasks/cancel', { taskId: this.taskId }, this.options);
  }

  /**
   * Polls (at the task's `pollIntervalMs`) until the status is one of `statuses`, or terminal; resolves with the task
   * then. Rejects after `timeoutMs` (default 10,000 ms).
   */
  async waitFor(
    statuses: McpTestingTaskStatus | readonly McpTestingTaskStatus[],
    options: Pick<McpTestingTaskResultOptions, 'timeoutMs' | 'pollIntervalMs'> = {},
  ): Promise<McpTestingTaskState> {
    const wanted = new Set(typeof statuses === 'string' ? [statuses] : statuses);
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_RESULT_TIMEOUT_MS);
    for (;;) {
      const state = await this.poll();
      if (wanted.has(state.status) || TERMINAL.has(state.status)) return state;
      await this.pause(deadline, options.pollIntervalMs, [...wanted].join(' or '));
    }
  }

  /**
   * Awaits the terminal state, polling at `pollIntervalMs`, and answers every input request on the way from
   * `options.answers`, then the client's `answerWith` / `onElicit` (with none, it throws, naming the request).
   * Resolves with the tool's result when `completed`; rejects with `McpTestingError` when `failed` (the task's
   * JSON-RPC error, `method` `tasks/get`), and with an `Error` when `cancelled` or after `timeoutMs`.
   */
  async result(options: McpTestingTaskResultOptions = {}): Promise<McpToolCallResult> {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_RESULT_TIMEOUT_MS);
    const callAnswers = [...(options.answers ?? [])];
    const answered = new Set<string>();
    for (;;) {
      const state = await this.poll();
      if (state.status === 'completed') {
        this.record.rounds = this.rounds + 1;
        return McpToolCallResult.of(state.result ?? { content: [] }, this.record);
      }
      if (state.status === 'failed') {
        const error = state.error ?? { code: -32603, message: 'The task failed without an error' };
        throw new McpTestingError(error.code, error.message, error.data, 200, 'tasks/get');
      }
      if (state.status === 'cancelled') throw new Error(`Task ${this.taskId} was cancelled`);
      const pending = Object.entries(state.inputRequests ?? {}).filter(([key]) => !answered.has(key));
      if (state.status === 'input_required' && pending.length > 0) {
        this.rounds++;
        const responses: Record<string, McpTestingAnswer> = {};
        for (const [key, embedded] of pending) {
          const request: McpTestingInputRequest = {
            key,
            method: embedded.method,
            params: embedded.params ?? {},
            round: this.rounds,
          };
          this.record.inputRequests.push(request);
          responses[key] = await this.port.answer(request, callAnswers);
          answered.add(key);
        }
        await this.answer(responses);
        continue;
      }
      await this.pause(deadline, options.pollIntervalMs, 'a terminal status');
    }
  }

  private async pause(deadline: number, interval: number | undefined, what: string): Promise<void> {
    if (Date.now() >= deadline) {
      throw new Error(
        `Task ${this.taskId} was still ${this.current.status} (${this.current.statusMessage ?? 'no message'}) when waiting for ${what} timed out`,
      );
    }
    const wait = Math.min(interval ?? this.current.pollIntervalMs ?? 100, Math.max(0, deadline - Date.now()));
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
