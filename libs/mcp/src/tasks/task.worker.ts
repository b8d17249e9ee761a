import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpExplorer } from '../discovery/mcp.explorer.js';
import type { McpTaskRoundState } from '../mrtr/task-round-state.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpTaskError, McpTaskRecord } from '../protocol/task-record.interface.js';
import {
  MCP_TASK_RUNNER,
  type McpTaskExecutor,
  type McpTaskQueueDepth,
  type McpTaskRunner,
} from '../protocol/task-runner.interface.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { BoundedTaskStore } from './bounded-task.store.js';
import { McpCallRunner } from '../server/call.runner.js';
import { McpModernWire } from '../server/modern-wire.profile.js';
import type { McpWireProfile } from '../server/wire-profile.interface.js';
import type { RunningCall } from '../server/running-call.js';
import { TaskCallPort, type TaskCallRequest } from './task-call.port.js';
import { TaskRound } from './task-round.js';
import { failedTask } from './task-transitions.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What this worker needs of `McpTelemetry`, spelled structurally: the published declarations must not reach
 * `@opentelemetry/api` (an optional peer) through this constructor.
 */
interface QueueDepthObserver {
  observeTaskQueue(read: () => Promise<McpTaskQueueDepth>, server?: string): void;
}

/**
 * Runs rounds of tasks in this process, each admitted through `McpCallRunner` like any call (guards, interceptors,
 * pipes and filters run; `admit: false`: rounds take no slot of the calls-in-flight caps, since tasks are bounded by
 * `tasks.maxTasksPerOwner` when they are created and a refused round would fail its task for nothing; the call
 * timeout and the shutdown drain apply). A round replays the tool's handler with the task's answers so far as
 * `inputResponses`, exactly as an MRTR retry does, and with the handler state the last round left in the record
 * (`ctx.requestState`); a handler that asks for more moves the task to `input_required`.
 *
 * Under a durable runner (`McpTaskRunner.durable`, a queue other processes read), a round that shutdown cuts short
 * does not fail its task: it stays `working` and `execute` answers `'interrupted'`, so the runner hands the round to
 * another worker, which replays it.
 */
@Injectable()
export class McpTaskWorker implements McpTaskExecutor, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  private readonly running = new Map<string, RunningCall<TaskCallRequest>>();
  // The drain may reach the rounds before this worker's own shutdown hook: the port tells it first.
  private readonly port = new DrainAwareTaskPort(this.running, () => (this.stopping = true));
  private calls?: { runner: McpCallRunner; wire: McpWireProfile };
  private stopping = false;

  constructor(
    private readonly store: BoundedTaskStore,
    @Inject(MCP_TASK_RUNNER) private readonly runner: McpTaskRunner,
    private readonly options: McpResolvedOptions,
    private readonly moduleRef: ModuleRef,
    // Nest runs `onApplicationBootstrap` in order of dependency depth: depending on the explorer attaches the runner
    // after discovery, so that a queue's worker never takes a round before the task's tool is known.
    _explorer: McpExplorer,
    @Optional() @Inject(McpTelemetry) private readonly telemetry?: QueueDepthObserver,
  ) {}

  onApplicationBootstrap(): void {
    this.runner.attach(this);
    // A shared queue's depth becomes the `nest_mcp.task.queue.depth` gauge (nothing without a registered meter).
    const runner = this.runner;
    if (typeof runner.queueDepth === 'function')
      this.telemetry?.observeTaskQueue(() => runner.queueDepth!(), runner.server);
  }

  /** No new rounds once the application closes; rounds in flight get `ctx.signal` from the call runner's drain. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.runner.close?.();
  }

  async execute(taskId: string): Promise<'done' | 'interrupted'> {
    const durable = this.runner.durable === true;
    try {
      // A durable queue keeps the round for a worker that is not shutting down.
      if (durable && this.stopping) return 'interrupted';
      const record = await this.store.load(taskId);
      // Another round runs it, it waits for input, or it ended (cancelled, expired): nothing to do.
      if (record?.status !== 'working' || this.running.has(taskId)) return 'done';
      // Interrupted: shutdown fired the round's signal (or ended it without an answer) under a durable runner.
      const interrupted = () => this.stopping && (this.running.get(taskId)?.cancellation.aborted ?? true);
      const round = new TaskRound(
        this.store,
        record,
        this.options.tasks.maxResultBytes,
        durable ? interrupted : undefined,
      );
      // A round does not outlive its task: at the end of the TTL its signal fires (the store forgets the task then).
      const remaining = record.ttlMs === null ? Infinity : Math.max(0, record.createdAt + record.ttlMs - Date.now());
      // Timers hold at most 2^31 - 1 ms (~24.8 days); a longer lifetime is left to the call timeout.
      const expiry = remaining <= MAX_TIMER_MS ? setTimeout(() => this.abort(taskId), remaining) : undefined;
      expiry?.unref();
      try {
        const { runner, wire } = this.callRunner();
        await runner.run<TaskCallRequest>(roundRequest(record, round, wire, durable), this.port);
      } catch (error) {
        round.end(toTaskError(error));
      } finally {
        clearTimeout(expiry);
      }
      if (!round.answered) round.end({ code: -32603, message: 'The task ended without a result' });
      await round.settled;
      return round.left ? 'interrupted' : 'done';
    } catch (error) {
      this.logger.error(`Task ${taskId} could not run`, (error as Error)?.stack ?? String(error));
      return 'done';
    }
  }

  abort(taskId: string): void {
    const call = this.running.get(taskId);
    if (!call) return;
    call.cancellation.abort(new Error('The task was cancelled'));
  }

  async fail(taskId: string, error: McpTaskError): Promise<void> {
    try {
      await this.store.update(taskId, (task) => failedTask(task, error));
    } catch (failure) {
      this.logger.error(`Task ${taskId} could not be failed`, (failure as Error)?.stack ?? String(failure));
    }
    // Its round, if one still runs here, has nothing left to write (the task is terminal).
    this.abort(taskId);
  }

  /**
   * The call runner and the 2026-07-28 wire every round speaks (a task's result is stored in its shapes; each wire
   * reshapes it when it answers), resolved on first use: both depend on the task starter, which uses this.
   */
  private callRunner(): { runner: McpCallRunner; wire: McpWireProfile } {
    // Strict: this server's own runner and wire (this worker is a provider of its McpModule), not the first of several
    // servers in the application (docs/servers.md).
    this.calls ??= {
      runner: this.moduleRef.get(McpCallRunner, { strict: true }),
      wire: this.moduleRef.get(McpModernWire, { strict: true }),
    };
    return this.calls;
  }
}

/** The port of task rounds, also told when the shutdown drain reaches a round (before the drain aborts it). */
class DrainAwareTaskPort extends TaskCallPort {
  constructor(
    running: Map<string, RunningCall<TaskCallRequest>>,
    private readonly draining: () => void,
  ) {
    super(running);
  }

  onShutdown(): void {
    this.draining();
  }
}

/** The call of one round: the stored method and params, the answers so far, the creating request's protocol fields. */
function roundRequest(record: McpTaskRecord, round: TaskRound, wire: McpWireProfile, queued: boolean): TaskCallRequest {
  const params: JsonObject = { ...record.params };
  if (Object.keys(record.answers).length > 0) params.inputResponses = record.answers as JsonObject;
  return {
    origin: 'task',
    wire,
    id: `task:${record.taskId}:${record.version}`,
    method: record.method,
    params,
    meta: {
      protocolVersion: record.protocolVersion,
      clientCapabilities: record.clientCapabilities,
      ...(record.clientInfo && { clientInfo: record.clientInfo }),
      // Progress and logs of a round become the task's status message (TaskRound); nothing reaches a client.
      progressToken: `task:${record.taskId}`,
      logLevel: 'info',
      raw: {},
    },
    principal: record.owner ?? undefined,
    // The creating request's verified token (its claims): the visibility hook, the scope check and `ctx.accessToken`
    // see the caller that created the task, as that call did.
    ...(record.accessToken && { accessToken: record.accessToken }),
    // Guards see a request without HTTP: no headers, the task id (a guard that needs HTTP credentials refuses it).
    httpRequest: { headers: {}, mcpTaskId: record.taskId },
    admit: false,
    // Telemetry: the round's span links to the request that created the task (a trace of its own).
    ...(record.traceContext && { causedBy: record.traceContext }),
    queued,
    task: roundBinding(record, round),
    round,
  };
}

/** The task binding of a round: the handler state the last round left, and the round to keep the next one. */
function roundBinding(record: McpTaskRecord, round: TaskRound): McpTaskRoundState {
  return {
    taskId: record.taskId,
    authorized: record.authorizedAtCreation === true,
    ...(record.handlerState !== undefined && { handlerState: record.handlerState }),
    keepHandlerState: (state) => round.keepHandlerState(state),
    setStatusMessage: (message) => round.setStatusMessage(message),
  };
}

function toTaskError(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof McpError)
    return { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) };
  return { code: -32603, message: 'Internal error' };
}
