import { Inject, Injectable, Logger } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpToolContext } from '../context/mcp-tool.context.js';
import type { ToolEntry } from '../discovery/registry-entries.interface.js';
import { McpMrtrService } from '../mrtr/mrtr.service.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { TASKS_EXTENSION } from '../protocol/task.constants.js';
import { MCP_TASK_RUNNER, type McpTaskRunner } from '../protocol/task-runner.interface.js';
import { BoundedTaskStore } from './bounded-task.store.js';
import { toolFailure } from '../server/exception.mapper.js';
import { McpToolTaskStarter } from '../server/tool-task.starter.js';
import { authorizeTaskCreation } from './task-authorization.util.js';
import { newTaskRecord, queueTask } from './task-launch.util.js';
import { createTaskResult, declaresTasks, TASKS_REQUIRED_CAPABILITIES } from '../protocol/task-wire.util.js';

/**
 * The tool-task hook of the 2026-07-28 wire (the tasks extension's `toolTasks`). Decides, per `tools/call` of a tool
 * with `task`, whether it becomes a task (ext-tasks spec 2026-07-28: tasks,
 * "Capability Negotiation"): only for a request that declared the extension itself; a tool that requires a task
 * answers `-32021` to one that did not. Before creating the task, `beforeTask` may ask for input through ordinary MRTR
 * rounds on the `tools/call` ("Task Creation": MRTR first); its answers become the task's first answers. The
 * `CreateTaskResult` is returned only once the store has the task (a `tasks/get` succeeds at once).
 */
@Injectable()
export class McpTaskStarter extends McpToolTaskStarter {
  private readonly logger = new Logger('McpTasks');

  constructor(
    private readonly store: BoundedTaskStore,
    @Inject(MCP_TASK_RUNNER) private readonly runner: McpTaskRunner,
    private readonly mrtr: McpMrtrService,
    private readonly options: McpResolvedOptions,
  ) {
    super();
  }

  async start(scope: McpRequestScope, entry: ToolEntry, input: unknown): Promise<JsonObject | undefined> {
    const policy = entry.task!;
    const name = entry.definition.name;
    if (!declaresTasks(scope.meta.clientCapabilities)) {
      if (policy.support === 'optional') return undefined;
      throw McpError.missingCapability(
        `Tool "${name}" runs only as a task: declare the ${TASKS_EXTENSION} extension in this request's clientCapabilities`,
        TASKS_REQUIRED_CAPABILITIES,
      );
    }
    // Authorization first, against the request that creates the task: its rounds run without guards.
    const denied = await authorizeTaskCreation(scope, entry, input, this.logger);
    if (denied) return denied;
    let answers: Record<string, unknown> = {};
    if (policy.beforeTask) {
      const before = await this.beforeTask(scope, entry, input);
      if ('result' in before) return before.result;
      answers = before.answers;
    }
    const { defaultTtlMs, pollIntervalMs } = this.options.tasks;
    const record = newTaskRecord(scope, entry, { wire: 'modern', ttlMs: defaultTtlMs, pollIntervalMs, answers });
    await this.store.create(record);
    await queueTask(record, this.store, this.runner, this.logger);
    return createTaskResult(record);
  }

  /** Runs `beforeTask` for one MRTR round: its `input_required` result, a failure, or the answers it gathered. */
  private async beforeTask(
    scope: McpRequestScope,
    entry: ToolEntry,
    input: unknown,
  ): Promise<{ result: JsonObject } | { answers: Record<string, unknown> }> {
    const name = entry.definition.name;
    const end = await this.mrtr.round(
      { from: 'request', scope, target: name },
      (ledger) => McpToolContext.open(scope, name, ledger),
      (context) => entry.task!.beforeTask!(input, context),
    );
    if (end.kind === 'input_required') return { result: end.asked };
    if (end.kind === 'threw') {
      const mapped = toolFailure(end.error, this.logger, name);
      if (mapped instanceof McpError) throw mapped;
      return { result: { content: [{ type: 'text', text: mapped.text }], isError: true } };
    }
    return { answers: end.ledger.acceptedAnswers() };
  }
}
