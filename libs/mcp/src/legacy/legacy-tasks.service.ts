import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { McpToolContext } from '../context/mcp-tool.context.js';
import type { ToolEntry } from '../discovery/registry-entries.interface.js';
import { McpMrtrService } from '../mrtr/mrtr.service.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import type {
  JsonObject,
  JsonRpcErrorResponse,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { MetaKeys } from '../protocol/meta-keys.constants.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import type { ResponseChannel } from '../protocol/response-channel.js';
import { isTerminalTaskStatus, type McpTaskRecord, type McpTaskStatus } from '../protocol/task-record.interface.js';
import { MCP_TASK_RUNNER, type McpTaskRunner } from '../protocol/task-runner.interface.js';
import { McpAccessPolicy } from '../server/access.policy.js';
import { toolFailure } from '../server/exception.mapper.js';
import type { McpRoute } from '../server/mcp-route.interface.js';
import type { McpToolTaskStarter } from '../server/tool-task.starter.js';
import type { McpWireName } from '../protocol/wire-name.js';
import { TASKS_EXTENSION } from '../protocol/task.constants.js';
import {
  answeredTask,
  authorizeTaskCreation,
  BoundedTaskStore,
  cancelledTask,
  failedTask,
  isAnswerShaped,
  LegacyTaskWire,
  newTaskRecord,
  queueTask,
  TaskRecordTooLargeError,
} from '../tasks/index.js';
import { toLegacyError, toLegacyResult } from './legacy-result.shaper.js';
import type { LegacySession } from './legacy-session.js';
import { SessionClientRequests } from './session-client-requests.js';

/** The `_meta` key that ties a message to its task (spec 2025-11-25: basic/utilities/tasks, "Related Task Metadata"). */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** What a 2025-11-25 session keeps about a task it created, in this process. */
interface TaskBinding {
  readonly session: LegacySession;
  /** The last status told to the session (`notifications/tasks/status` goes out when it changes). */
  status: McpTaskStatus;
}

/** A `tasks/result` blocked until its task ends: the call's channel carries the task's input requests meanwhile. */
interface ResultWaiter {
  readonly session: LegacySession | undefined;
  readonly channel: ResponseChannel;
  readonly done: (record: McpTaskRecord) => void;
}

/** The wire this service creates and serves tasks for. */
const SESSION_WIRE: McpWireName = 'legacy';

const notFound = () => McpError.invalidParams('Failed to retrieve task: Task not found');

/** Most rounds of questions a `beforeTask` hook may ask on this wire before its call is refused. */
const MAX_BEFORE_TASK_ROUNDS = 8;

/**
 * The 2025-11-25 core tasks on the same store, runner and handlers as the 2026-07-28 extension (spec 2025-11-25:
 * basic/utilities/tasks; docs/two-wires.md): a session's `tools/call` with the `task` param becomes a task when the
 * tool allows it (`execution.taskSupport`), `tasks/get`, `tasks/result` (blocking until the task ends), `tasks/list`
 * (the caller's tasks) and `tasks/cancel` answer in this revision's shapes (`ttl`, `pollInterval`, a `Task` from
 * `tasks/cancel`, `-32602` for a terminal one), and `notifications/tasks/status` goes to the creating session's GET
 * stream when a status changes.
 *
 * Input: a task's `ctx.elicit` ends its round with input requests in the store (`input_required`), exactly as on the
 * 2026 wire; here each becomes a real server→client request with the `related-task` `_meta`, sent on a waiting
 * `tasks/result` of the task or, failing that, on the creating session's GET stream ("Input Required Status"). The
 * client's answer resumes the task like a `tasks/update` does. A task of another principal answers as an unknown one.
 */
@Injectable()
export class McpLegacyTasks extends LegacyTaskWire implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpLegacyTasks');
  private readonly bindings = new Map<string, TaskBinding>();
  /** The ids of the tasks each session created (for anonymous `tasks/list`); gone with the session. */
  private readonly createdBy = new WeakMap<LegacySession, Set<string>>();
  private readonly waiters = new Map<string, Set<ResultWaiter>>();
  /** Task keys whose request is out and not answered yet, by task id: never asked twice at once. */
  private readonly asking = new Map<string, Set<string>>();
  private stopWatching?: () => void;
  private enabledFor?: { version: number; enabled: boolean };
  /** How a session's `tools/call` of a task tool becomes a task (`startCall`), for the 2025-11-25 wire's route. */
  readonly toolTasks: McpToolTaskStarter = { start: (scope, entry, input) => this.startCall(scope, entry, input) };

  constructor(
    private readonly store: BoundedTaskStore,
    @Inject(MCP_TASK_RUNNER) private readonly runner: McpTaskRunner,
    private readonly registry: McpRegistry,
    private readonly options: McpResolvedOptions,
    private readonly access: McpAccessPolicy,
    private readonly mrtr: McpMrtrService,
  ) {
    super();
  }

  /**
   * The task methods of this revision, in the 2025-11-25 wire's route table instead of the extension's: they exist
   * while a tool may run as a task (the extension is advertised on the 2026 wire).
   */
  routes(): Iterable<readonly [string, McpRoute]> {
    const route: McpRoute = {
      extension: TASKS_EXTENSION,
      handle: (scope) => this.handle(scope),
      delivery: 'response',
      cancellableByDisconnect: false,
    };
    return [
      ['tasks/get', route],
      ['tasks/result', route],
      ['tasks/list', route],
      ['tasks/cancel', route],
    ];
  }

  onModuleInit(): void {
    this.stopWatching = this.store.watch((record) => {
      if (isSessionTask(record)) this.changed(record);
    });
  }

  onModuleDestroy(): void {
    this.stopWatching?.();
  }

  /**
   * Whether a tool of this server may run as a task: then sessions are offered the `tasks` capability. Computed once
   * per registry version (tools may be registered at runtime).
   */
  get enabled(): boolean {
    if (this.enabledFor?.version !== this.registry.version) {
      this.enabledFor = {
        version: this.registry.version,
        enabled: this.registry.listTools().some((tool) => tool.task !== undefined),
      };
    }
    return this.enabledFor.enabled;
  }

  /**
   * What `initialize` declares instead of the extension's entry (ext-tasks SEP-2663, "Backward Compatibility": the
   * extension enables nothing on this wire): the `tasks` server capability of this revision (spec 2025-11-25:
   * basic/utilities/tasks, "Server Capabilities"), offered when the caller may see a task tool (then discover shows
   * it the extension); `undefined` when no tool may run as a task.
   */
  capabilities(): Readonly<JsonObject> | undefined {
    return this.enabled ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : undefined;
  }

  /** A tool's `execution.taskSupport` for `tools/list` on this wire; `undefined` for a tool without `task` (forbidden). */
  taskSupport(name: string): 'optional' | 'required' | undefined {
    return this.registry.getTool(name)?.task?.support;
  }

  /**
   * Refuses the `task` param on a `tools/call` of a tool that never runs as a task (`execution.taskSupport`
   * "forbidden"), with `-32601` (spec 2025-11-25: basic/utilities/tasks, "Tool-Level Negotiation"). Without the
   * `tasks` capability the param is ignored and the call runs normally (same page, "Task Support and Handling").
   */
  checkTaskParam(params: JsonObject): void {
    if (params.task === undefined || typeof params.name !== 'string' || !this.enabled) return;
    const tool = this.registry.getTool(params.name);
    if (tool && tool.task === undefined) {
      throw new McpError(
        McpErrorCode.MethodNotFound,
        `Tool "${params.name}" does not run as a task (its execution.taskSupport is "forbidden"): call it without the task param`,
      );
    }
  }

  /**
   * Tool-level negotiation (spec 2025-11-25: basic/utilities/tasks, "Tool-Level Negotiation"): with the `task` param
   * the call becomes a task and answers `CreateTaskResult` at once; without it a `"required"` tool answers `-32601` and
   * an `"optional"` one runs as an ordinary call (`undefined`). The requested `ttl` is capped by `tasks.maxTtlMs`.
   * With the param, the tool's guards run first, against this request, as on the 2026 wire.
   */
  async startCall(scope: McpRequestScope, entry: ToolEntry, input: unknown): Promise<JsonObject | undefined> {
    const name = entry.definition.name;
    const requested = scope.params.task;
    if (requested !== undefined) {
      const denied = await authorizeTaskCreation(scope, entry, input, this.logger);
      if (denied) return denied;
    }
    if (requested === undefined) {
      if (entry.task?.support !== 'required') return undefined;
      throw new McpError(
        McpErrorCode.MethodNotFound,
        `Tool "${name}" runs only as a task: send tools/call with the task param (its execution.taskSupport is "required")`,
      );
    }
    if (!isJsonObject(requested))
      throw McpError.invalidParams('Invalid params: task must be an object ({ ttl?: number })');
    const ttl = requested.ttl;
    if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl <= 0)) {
      throw McpError.invalidParams('Invalid params: task.ttl must be a positive integer (milliseconds)');
    }
    const before = await this.beforeTask(scope, entry, input);
    if ('result' in before) return before.result;
    const { defaultTtlMs, maxTtlMs, pollIntervalMs } = this.options.tasks;
    // The task starter ran the tool's guards against this request before handing it over.
    const record = newTaskRecord(scope, entry, {
      wire: SESSION_WIRE,
      ttlMs: Math.min(ttl ?? defaultTtlMs, maxTtlMs),
      pollIntervalMs,
      answers: before.answers,
    });
    await this.store.create(record);
    const session = sessionOf(scope);
    if (session) {
      this.forgetClosedSessions();
      this.bindings.set(record.taskId, { session, status: record.status });
      let created = this.createdBy.get(session);
      if (!created) this.createdBy.set(session, (created = new Set()));
      created.add(record.taskId);
    }
    await queueTask(record, this.store, this.runner, this.logger);
    return { task: legacyTask(record) };
  }

  /**
   * The tool's `beforeTask` hook, before the task exists. Its `ctx.elicit` works as on the 2026 wire (a round ends with
   * what it asks for, and the hook is replayed with the answers), but each question is a real server→client request
   * on this `tools/call`'s stream, answered live; the answers, by the hook's keys, become the task's first answers so
   * its handler's `ctx.elicit` of the same key finds them. A failure of the hook is the call's answer. Each round is
   * `McpMrtrService.round` with the answers held here (`{ from: 'held' }`), so whether it asked is decided from its
   * ledger, as on the 2026 wire.
   */
  private async beforeTask(
    scope: McpRequestScope,
    entry: ToolEntry,
    input: unknown,
  ): Promise<{ result: JsonObject } | { answers: Record<string, unknown> }> {
    const hook = entry.task?.beforeTask;
    if (!hook) return { answers: {} };
    const live = scope.liveRequests;
    const name = entry.definition.name;
    // Without live requests the hook's ctx.elicit ends the round (InputRequiredSignal) instead of asking.
    const offline: McpRequestScope = { ...scope, liveRequests: undefined };
    const answers = new Map<string, unknown>();
    for (let round = 0; round < MAX_BEFORE_TASK_ROUNDS; round++) {
      const end = await this.mrtr.round(
        { from: 'held', answers },
        (ledger) => McpToolContext.open(offline, name, ledger),
        (context) => hook(input, context),
      );
      if (end.kind === 'returned') return { answers: end.ledger.acceptedAnswers() };
      if (end.kind === 'threw') {
        const failure = toolFailure(end.error, this.logger, name);
        if (failure instanceof McpError) throw failure;
        return { result: { content: [{ type: 'text', text: failure.text }], isError: true } };
      }
      if (!live) throw McpError.internal('beforeTask asked for input on a call that cannot ask the client');
      for (const [key, request] of end.asked) {
        let params = request.params;
        // The legacy wire identifies URL elicitations (as MrtrContext's live path does).
        if (request.method === 'elicitation/create' && params?.mode === 'url')
          params = { ...params, elicitationId: randomUUID() };
        answers.set(key, await live.request(request.method, params));
      }
    }
    throw McpError.invalidParams(
      `Tool "${name}": beforeTask kept asking for input (${MAX_BEFORE_TASK_ROUNDS} rounds); check the answers it expects`,
    );
  }

  /**
   * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` of a session (spec 2025-11-25: basic/utilities/tasks,
   * "Protocol Messages" and "Error Handling"). `-32601` while no tool may run as a task; unknown, expired and foreign
   * task ids alike answer `-32602`, and so do tasks created on the 2026 wire. A task of the caller's is then judged
   * by the access rules of its tool, as a `tools/call` of it would be (`McpAccessPolicy.admitTask`).
   */
  async handle(scope: McpRequestScope): Promise<JsonObject> {
    if (!this.enabled) throw new McpError(McpErrorCode.MethodNotFound, `Method not found: ${scope.method}`);
    const owner = scope.principal ?? null;
    if (scope.method === 'tasks/list') return this.list(scope, sessionOf(scope));
    const taskId = scope.params.taskId;
    if (typeof taskId !== 'string' || taskId.length === 0)
      throw McpError.invalidParams('Invalid params: taskId must be a non-empty string');
    const record = await this.store.get(taskId, owner);
    if (!record || !isSessionTask(record)) throw notFound();
    this.access.admitTask(scope, record, notFound);
    switch (scope.method) {
      case 'tasks/get':
        return legacyTask(record);
      case 'tasks/cancel':
        return this.cancel(record);
      case 'tasks/result':
        return this.result(record, scope);
      default:
        throw new McpError(McpErrorCode.MethodNotFound, `Method not found: ${scope.method}`);
    }
  }

  /**
   * The caller's tasks of this wire, newest first. Without a principal every anonymous caller is one owner in the
   * store, so an anonymous session lists only the tasks it created itself: listing must not hand out the ids that
   * stand in for access control there (spec 2025-11-25: basic/utilities/tasks, "Task Isolation and Access Control").
   * A task whose tool the caller may not use (its scopes, the `visibility` hook) is left out, as `tools/list` leaves
   * out the tool.
   */
  private async list(scope: McpRequestScope, session: LegacySession | undefined): Promise<JsonObject> {
    const owner = scope.principal ?? null;
    const cursor = scope.params.cursor;
    if (cursor !== undefined && typeof cursor !== 'string')
      throw McpError.invalidParams('Invalid params: cursor must be a string');
    const page = await this.store.list(owner, { cursor, limit: this.options.pageSize });
    const own = owner === null ? ((session && this.createdBy.get(session)) ?? new Set<string>()) : undefined;
    // Tasks of the 2026 wire are not served here (a tasks/get of them answers -32602), so they are not listed either.
    const listed = (record: McpTaskRecord) =>
      isSessionTask(record) && (!own || own.has(record.taskId)) && this.access.seesTask(scope, record);
    const tasks = page.tasks.filter(listed).map(legacyTask);
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  }

  /** A terminal task is refused (`-32602`); otherwise it is `cancelled` before the answer, and its `ctx.signal` fires. */
  private async cancel(record: McpTaskRecord): Promise<JsonObject> {
    if (isTerminalTaskStatus(record.status)) {
      throw McpError.invalidParams(`Cannot cancel task: already in terminal status '${legacyStatus(record)}'`);
    }
    const after = await this.store.update(record.taskId, (task) =>
      cancelledTask(task, 'The task was cancelled by request.'),
    );
    if (!after) throw notFound();
    if (after.status !== 'cancelled')
      throw McpError.invalidParams(`Cannot cancel task: already in terminal status '${legacyStatus(after)}'`);
    await this.runner.cancel(record.taskId);
    return legacyTask(after);
  }

  /**
   * Blocks until the task ends, then answers exactly what the `tools/call` would have (its result with the
   * `related-task` `_meta`, or its JSON-RPC error). Meanwhile the task's input requests travel on this call's stream.
   */
  private async result(record: McpTaskRecord, scope: McpRequestScope): Promise<JsonObject> {
    let ended = record;
    if (!isTerminalTaskStatus(record.status)) {
      ended = await new Promise<McpTaskRecord>((resolve) => {
        const waiter: ResultWaiter = { session: sessionOf(scope), channel: scope.channel, done: resolve };
        let set = this.waiters.get(record.taskId);
        if (!set) this.waiters.set(record.taskId, (set = new Set()));
        set.add(waiter);
        const signal = scope.cancellation.signal;
        const stop = () => {
          set.delete(waiter);
          if (set.size === 0 && this.waiters.get(record.taskId) === set) this.waiters.delete(record.taskId);
        };
        // The call's end (notifications/cancelled, timeout, shutdown) releases it; the task keeps running.
        signal.addEventListener(
          'abort',
          () => {
            stop();
            resolve(record);
          },
          { once: true },
        );
        // A change may have landed between the read and the registration.
        void this.store.get(record.taskId, record.owner).then((current) => {
          if (!current || isTerminalTaskStatus(current.status)) {
            stop();
            resolve(current ?? record);
          } else if (current.status === 'input_required') this.ask(current);
        });
      });
      if (scope.cancellation.signal.aborted) throw McpError.internal('The request ended before the task did');
    }
    return terminalAnswer(ended);
  }

  /** A committed change of a 2025-11-25 task: status notification, input requests, waiting `tasks/result`s. */
  private changed(record: McpTaskRecord): void {
    const binding = this.bindings.get(record.taskId);
    if (binding && binding.status !== legacyStatus(record)) {
      binding.status = legacyStatus(record);
      // spec 2025-11-25: basic/utilities/tasks, "Task Status Notification": the full Task, no related-task _meta.
      if (!binding.session.isClosed) {
        binding.session.sendOnStream({
          jsonrpc: '2.0',
          method: 'notifications/tasks/status',
          params: legacyTask(record),
        });
      }
    }
    if (record.status === 'input_required') this.ask(record);
    if (!isTerminalTaskStatus(record.status)) return;
    this.bindings.delete(record.taskId);
    this.asking.delete(record.taskId);
    const waiting = this.waiters.get(record.taskId);
    this.waiters.delete(record.taskId);
    for (const waiter of waiting ?? []) waiter.done(record);
  }

  /**
   * Sends each outstanding input request not already out: on a waiting `tasks/result` of the task, else on the
   * creating session's GET stream; with neither, it waits for the next `tasks/result` (the spec tells the client to
   * call it on `input_required`).
   */
  private ask(record: McpTaskRecord): void {
    for (const [key, request] of Object.entries(record.inputRequests ?? {})) {
      let asking = this.asking.get(record.taskId);
      if (asking?.has(key)) continue;
      const target = this.target(record.taskId);
      if (!target) return;
      if (!asking) this.asking.set(record.taskId, (asking = new Set()));
      asking.add(key);
      const params: JsonObject = { ...(request.params ?? {}) };
      params._meta = {
        ...(isJsonObject(params._meta) ? params._meta : {}),
        [RELATED_TASK_META_KEY]: { taskId: record.taskId },
      };
      const pending = target.session.expectResponse();
      const sent = target.send({ jsonrpc: '2.0', id: pending.id, method: request.method, params });
      if (!sent) {
        pending.response.catch(() => undefined);
        pending.cancel(new Error('not delivered'));
        asking.delete(key);
        continue;
      }
      const timer = setTimeout(
        () => pending.cancel(new Error(`The client did not answer ${request.method} in time`)),
        this.options.clientRequestTimeoutMs,
      );
      timer.unref();
      pending.response
        .then((answer) => this.answered(record.taskId, key, request.method, answer))
        .catch(() => undefined)
        .finally(() => {
          clearTimeout(timer);
          this.asking.get(record.taskId)?.delete(key);
        });
    }
  }

  /** Where a task's input request goes now: a waiting `tasks/result` stream, or the creating session's GET stream. */
  private target(taskId: string): { session: LegacySession; send: (message: JsonRpcRequest) => boolean } | undefined {
    for (const waiter of this.waiters.get(taskId) ?? []) {
      if (waiter.session && !waiter.channel.isFinished)
        return { session: waiter.session, send: (message) => waiter.channel.request(message) };
    }
    const binding = this.bindings.get(taskId);
    if (binding && !binding.session.isClosed && binding.session.hasOpenStream) {
      return { session: binding.session, send: (message) => binding.session.requestOnStream(message) };
    }
    return undefined;
  }

  /**
   * The client's answer to a task's input request: taken like a `tasks/update` answer (the task works again once
   * nothing is outstanding); an error, or an answer not shaped like the request's result, fails the task with it.
   */
  private async answered(
    taskId: string,
    key: string,
    method: string,
    message: JsonRpcResultResponse | JsonRpcErrorResponse,
  ): Promise<void> {
    if ('error' in message || !isAnswerShaped(method, message.result)) {
      const error =
        'error' in message
          ? {
              code: message.error.code,
              message: message.error.message,
              ...(message.error.data !== undefined && { data: message.error.data }),
            }
          : { code: McpErrorCode.InvalidParams, message: `The answer to ${method} is not a valid ${method} result` };
      await this.store.update(taskId, (task) => (task.inputRequests?.[key] ? failedTask(task, error) : undefined));
      return;
    }
    let resumed = false;
    try {
      await this.store.update(taskId, (task) => {
        resumed = false;
        const request = task.status === 'input_required' ? task.inputRequests?.[key] : undefined;
        if (!request) return undefined;
        const inputRequests = { ...task.inputRequests };
        delete inputRequests[key];
        const next = answeredTask(task, { ...task.answers, [request.handlerKey]: message.result }, inputRequests);
        resumed = next.status === 'working';
        return next;
      });
    } catch (error) {
      if (!(error instanceof TaskRecordTooLargeError)) throw error;
      // An answer the task cannot keep (tasks.maxRecordBytes): nobody waits for a reply to a response, so the task
      // ends with the reason, as for an answer of the wrong shape.
      const failure = { code: error.code, message: error.message, data: error.data };
      await this.store.update(taskId, (task) => failedTask(task, failure));
      return;
    }
    if (resumed) await this.runner.enqueue(taskId);
  }

  private forgetClosedSessions(): void {
    for (const [taskId, binding] of this.bindings) if (binding.session.isClosed) this.bindings.delete(taskId);
  }
}

/** Whether a task was created on this wire (a session's `tools/call`): each wire serves only its own tasks. */
function isSessionTask(record: McpTaskRecord): boolean {
  return record.wire === SESSION_WIRE;
}

/** The session of a call on this wire (its live requests know it); `undefined` for other origins. */
function sessionOf(scope: McpRequestScope): LegacySession | undefined {
  return scope.liveRequests instanceof SessionClientRequests ? scope.liveRequests.session : undefined;
}

/**
 * The status on this wire: a tool result with `isError` is a `failed` task here (spec 2025-11-25:
 * basic/utilities/tasks, "Task Status"), while the 2026 extension keeps it `completed`.
 */
function legacyStatus(record: McpTaskRecord): McpTaskStatus {
  return record.status === 'completed' && record.result?.isError === true ? 'failed' : record.status;
}

/** The 2025-11-25 `Task` of a record: `ttl` and `pollInterval` in milliseconds, ISO 8601 times. */
export function legacyTask(record: McpTaskRecord): JsonObject {
  const task: JsonObject = {
    taskId: record.taskId,
    status: legacyStatus(record),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  else if (task.status === 'failed' && record.status === 'completed') task.statusMessage = 'The tool reported an error';
  return task;
}

/** What `tasks/result` answers for an ended task: the underlying result (2025 shape) or its error. */
function terminalAnswer(record: McpTaskRecord): JsonObject {
  if (record.status === 'completed' && record.result) {
    const result = toLegacyResult(record.method, record.result);
    // The store keeps the 2026 shape, whose _meta may carry serverInfo: results of this wire never do.
    const { [MetaKeys.serverInfo]: _serverInfo, ...meta } = isJsonObject(result._meta) ? result._meta : {};
    return { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: record.taskId } } };
  }
  if (record.status === 'failed' && record.error)
    throw toLegacyError(new McpError(record.error.code, record.error.message, record.error.data));
  if (record.status === 'cancelled')
    throw new McpError(McpErrorCode.InternalError, 'The task was cancelled', { taskId: record.taskId });
  throw McpError.internal('The task ended without a result');
}
