import type { McpClient } from '../protocol/mcp.client.js';
import type { FinalResult, InputRequests, JsonRpcNotification, Task } from '../protocol/wire.types.js';
import { InputPrompt, type InputAnswers } from './input.prompt.js';
import { withRounds } from './rounds.js';
import { Store } from './store.js';

/** The latest `notifications/progress` of the call's current round. */
export interface ProgressState {
  progress: number;
  total?: number;
  message?: string;
}

/** One `notifications/message` of the call. */
export interface LogLine {
  level: string;
  logger?: string;
  data: unknown;
}

/** Where a call stands, for its panel. */
export interface CallState {
  phase: 'running' | 'input' | 'task' | 'done' | 'failed' | 'cancelled';
  /** The MRTR round being sent (1 for the first request). */
  round: number;
  progress?: ProgressState;
  logs: LogLine[];
  /** Input the user is asked for: an MRTR round's, or the task's. */
  prompt?: InputPrompt;
  /** The task, once the server answered with one (the tasks extension), as `tasks/get` last said. */
  task?: Task;
  result?: FinalResult;
  problem?: string;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * One `tools/call`, `prompts/get` or `resources/read` from the page, through to its end: progress bars and log lines
 * from its SSE stream, input rounds answered in the page, and — when the server makes it a task — the task followed
 * with `tasks/get`, its input answered with `tasks/update`, cancelled with `tasks/cancel`.
 */
export class McpCall {
  readonly state = new Store<CallState>({ phase: 'running', round: 1, logs: [] });
  private readonly stream = new AbortController();
  private readonly polling = new AbortController();
  private cancelRequested = false;

  constructor(
    private readonly client: McpClient,
    readonly method: string,
    readonly params: Record<string, unknown>,
    private readonly headers: Record<string, string> = {},
  ) {}

  private patch(change: Partial<CallState>): void {
    this.state.update((state) => ({ ...state, ...change }));
  }

  /** Runs the call; never throws (the state says how it ended). */
  async run(): Promise<void> {
    try {
      const result = await withRounds(this.client, this.method, this.params, (requests) => this.ask(requests), {
        signal: this.stream.signal,
        headers: this.headers,
        progress: true,
        onNotification: (notification) => this.heard(notification),
        onRound: (round) => this.patch({ round, phase: 'running', progress: undefined, prompt: undefined }),
      });
      if (result.resultType === 'task') await this.follow(result as unknown as Task);
      else this.patch({ phase: 'done', result, prompt: undefined });
    } catch (error) {
      if (this.cancelRequested)
        this.patch({ phase: 'cancelled', prompt: undefined, problem: 'Cancelled: the page closed the request stream' });
      else this.patch({ phase: 'failed', prompt: undefined, problem: (error as Error).message });
    }
  }

  /**
   * Cancels: a running request by closing its stream (spec 2026-07-28: basic/transports/streamable-http,
   * "Cancellation"), a task with `tasks/cancel` (followed until it ends).
   */
  async cancel(): Promise<void> {
    this.cancelRequested = true;
    const task = this.state.value.task;
    if (task) {
      await this.client.request('tasks/cancel', { taskId: task.taskId });
      return;
    }
    this.state.value.prompt?.dismiss('Cancelled');
    this.stream.abort();
  }

  /** Stops following a task (the panel closed); the task itself goes on. */
  dispose(): void {
    this.polling.abort();
    if (!this.state.value.task) this.stream.abort();
  }

  private ask(requests: InputRequests): Promise<InputAnswers> {
    const prompt = new InputPrompt(requests);
    this.patch({ phase: 'input', prompt });
    return prompt.answered;
  }

  private heard(notification: JsonRpcNotification): void {
    const params = notification.params ?? {};
    if (notification.method === 'notifications/progress') {
      this.patch({
        progress: {
          progress: Number(params.progress),
          total: typeof params.total === 'number' ? params.total : undefined,
          message: params.message as string | undefined,
        },
      });
    } else if (notification.method === 'notifications/message') {
      this.patch({
        logs: [
          ...this.state.value.logs,
          { level: String(params.level), logger: params.logger as string | undefined, data: params.data },
        ],
      });
    }
  }

  /** Polls the task until it ends, asking the user for its input when it waits in `input_required`. */
  private async follow(created: Task): Promise<void> {
    const { resultType: _, ...task } = created as Task & { resultType?: string };
    this.patch({ phase: 'task', task, progress: undefined });
    let asked = '';
    let current: Task = task;
    while (!TERMINAL.has(current.status) && !this.polling.signal.aborted) {
      await sleep(current.pollIntervalMs ?? 1000, this.polling.signal);
      if (this.polling.signal.aborted) return;
      const { resultType: __, ...next } = await this.client.request<Task & { resultType?: string }>('tasks/get', {
        taskId: task.taskId,
      });
      current = next;
      this.patch({ task: current });
      const keys = Object.keys(current.inputRequests ?? {})
        .sort()
        .join(',');
      if (current.status === 'input_required' && keys !== '' && keys !== asked) {
        asked = keys;
        void this.answerTask(current);
      }
    }
    if (current.status === 'completed') this.patch({ phase: 'done', result: current.result, prompt: undefined });
    else if (current.status === 'cancelled')
      this.patch({ phase: 'cancelled', prompt: undefined, problem: current.statusMessage ?? 'The task was cancelled' });
    else if (current.status === 'failed')
      this.patch({
        phase: 'failed',
        prompt: undefined,
        problem: current.error?.message ?? current.statusMessage ?? 'The task failed',
      });
  }

  private async answerTask(task: Task): Promise<void> {
    const prompt = new InputPrompt(task.inputRequests ?? {});
    this.patch({ prompt });
    try {
      const inputResponses = await prompt.answered;
      this.patch({ prompt: undefined });
      await this.client.request('tasks/update', { taskId: task.taskId, inputResponses });
    } catch {
      // Dismissed (the task ended, or was cancelled): nothing to send.
    }
  }
}
