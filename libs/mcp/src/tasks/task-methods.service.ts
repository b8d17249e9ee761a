import { Inject, Injectable, Optional } from '@nestjs/common';
import { isJsonObject } from '../protocol/json-object.util.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { TASKS_EXTENSION } from '../protocol/task.constants.js';
import type { McpTaskRecord } from '../protocol/task-record.interface.js';
import { MCP_TASK_RUNNER, type McpTaskRunner } from '../protocol/task-runner.interface.js';
import { BoundedTaskStore } from './bounded-task.store.js';
import { McpAccessPolicy } from '../server/access.policy.js';
import type { McpRoute } from '../server/mcp-route.interface.js';
import type { McpExtension, McpExtensionView } from '../server/extension.interface.js';
import { LegacyTaskWire } from './legacy-task.wire.js';
import { McpTaskStarter } from './task.starter.js';
import { isAnswerShaped } from './task-answer.util.js';
import { answeredTask, cancelledTask } from './task-transitions.js';
import { declaresTasks, detailedTask, TASKS_REQUIRED_CAPABILITIES } from '../protocol/task-wire.util.js';

/**
 * The tasks extension (ext-tasks SEP-2663) as the server sees it (`McpExtension`): advertised once a tool the caller
 * may see can run as a task (its value is exactly `{}`: no settings are defined); its methods `tasks/get`,
 * `tasks/update` and `tasks/cancel`, which exist while it is advertised (`tasks/result` and `tasks/list` are not
 * routed, so they answer `-32601` on this wire), each with `Mcp-Name: <taskId>` over HTTP (`nameParam`); its
 * tool-task hook (`McpTaskStarter`); and, when legacy/ provides it, its 2025-11-25 face (`LegacyTaskWire`).
 *
 * Order of checks (docs/tasks.md, "Security"): extension declared on this request (`-32021`,
 * before any lookup) → params → the task, by id and owner (unknown, expired and foreign ids answer the same `-32602`)
 * → the access rules of its tool, as `tools/call` applies them (`McpAccessPolicy.admitTask`: hidden by the
 * `visibility` hook → the same `-32602`; the token lacks the tool's scopes → 403 `insufficient_scope`) → the
 * operation.
 */
@Injectable()
export class McpTaskMethods implements McpExtension {
  readonly id = TASKS_EXTENSION;

  constructor(
    private readonly store: BoundedTaskStore,
    @Inject(MCP_TASK_RUNNER) private readonly runner: McpTaskRunner,
    private readonly access: McpAccessPolicy,
    readonly toolTasks: McpTaskStarter,
    @Optional() readonly legacy?: LegacyTaskWire,
  ) {}

  advertise(view: McpExtensionView): JsonObject | undefined {
    return view.tools.some((tool) => tool.task !== undefined) ? {} : undefined;
  }

  routes(): Iterable<readonly [string, McpRoute]> {
    // The methods exist only while the extension is advertised (a tool has `task`): -32601 before any other check.
    const route = (handle: McpRoute['handle']): McpRoute => ({
      extension: TASKS_EXTENSION,
      handle,
      delivery: 'response',
      cancellableByDisconnect: true,
      nameParam: 'taskId',
    });
    return [
      ['tasks/get', route((scope) => this.answer(scope, (record) => this.get(record)))],
      ['tasks/update', route((scope) => this.answer(scope, (record) => this.update(record, scope.params)))],
      ['tasks/cancel', route((scope) => this.answer(scope, (record) => this.cancel(record)))],
    ];
  }

  /** The common checks of the three methods, then the operation on the caller's task. */
  private async answer(
    scope: McpRequestScope,
    operate: (record: McpTaskRecord) => Promise<JsonObject> | JsonObject,
  ): Promise<JsonObject> {
    if (!declaresTasks(scope.meta.clientCapabilities)) {
      throw McpError.missingCapability(
        `${scope.method} needs the ${TASKS_EXTENSION} extension declared in this request's clientCapabilities`,
        TASKS_REQUIRED_CAPABILITIES,
      );
    }
    const taskId = scope.params.taskId;
    if (typeof taskId !== 'string' || taskId.length === 0)
      throw McpError.invalidParams('Invalid params: taskId must be a non-empty string');
    if (scope.method === 'tasks/update' && !isJsonObject(scope.params.inputResponses)) {
      throw McpError.invalidParams('Invalid params: inputResponses must be an object');
    }
    const record = await this.store.get(taskId, scope.principal ?? null);
    if (record?.wire !== 'modern') throw notFound();
    this.access.admitTask(scope, record, notFound);
    return operate(record);
  }

  private get(record: McpTaskRecord): JsonObject {
    return detailedTask(record);
  }

  /**
   * Takes the answers to outstanding keys; keys not outstanding (never issued, answered, superseded) are ignored, as
   * the spec asks. An answer that is not shaped like its request's result is refused (`-32602`) and nothing is taken.
   * Once every outstanding key is answered, the task works again and its next round is queued.
   */
  private async update(record: McpTaskRecord, params: JsonObject): Promise<JsonObject> {
    const responses = params.inputResponses as Record<string, unknown>;
    const outstanding = record.status === 'input_required' ? (record.inputRequests ?? {}) : {};
    for (const [key, answer] of Object.entries(responses)) {
      const request = Object.hasOwn(outstanding, key) ? outstanding[key] : undefined;
      if (request && !isAnswerShaped(request.method, answer)) {
        throw McpError.invalidParams(
          `Invalid params: inputResponses["${key}"] is not a valid ${request.method} result`,
        );
      }
    }
    let resumed = false;
    await this.store.update(record.taskId, (task) => {
      resumed = false;
      if (task.status !== 'input_required' || !task.inputRequests) return undefined;
      const inputRequests = { ...task.inputRequests };
      const answers = { ...task.answers };
      let taken = 0;
      for (const [key, answer] of Object.entries(responses)) {
        const request = Object.hasOwn(inputRequests, key) ? inputRequests[key] : undefined;
        if (!request) continue;
        answers[request.handlerKey] = answer;
        delete inputRequests[key];
        taken++;
      }
      if (taken === 0) return undefined;
      const next = answeredTask(task, answers, inputRequests);
      resumed = next.status === 'working';
      return next;
    });
    if (resumed) await this.runner.enqueue(record.taskId);
    return {};
  }

  /** Cancels a task that is not terminal (it becomes `cancelled` and its round's `ctx.signal` fires); acks either way. */
  private async cancel(record: McpTaskRecord): Promise<JsonObject> {
    let cancelled = false;
    await this.store.update(record.taskId, (task) => {
      cancelled = true;
      return cancelledTask(task, 'Cancelled by request');
    });
    if (cancelled) await this.runner.cancel(record.taskId);
    return {};
  }
}

function notFound(): McpError {
  return McpError.invalidParams('Failed to retrieve task: Task not found');
}
