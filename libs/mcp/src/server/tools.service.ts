import { Injectable, Logger } from '@nestjs/common';
import { McpToolContext } from '../context/mcp-tool.context.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { ParamHeaderBinding } from '../protocol/param-header-binding.interface.js';
import type { ToolEntry } from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpCallToolResult } from '../protocol/mcp-wire.interface.js';
import { formatIssues, formatKeys } from '../schema/index.js';
import { toolFailure } from './exception.mapper.js';
import { McpHandlerInvoker } from './handler.invoker.js';
import { optionalObject, requireString } from './params.util.js';
import { isCallToolResult, structuredToolResult, toolContentOf } from './result-shapers.js';
import { McpToolTaskStarter } from './tool-task.starter.js';
import { McpAccessPolicy } from './access.policy.js';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import { echoed } from '../protocol/echo.util.js';

/** `tools/call`; `McpListsService` answers `tools/list`. */
@Injectable()
export class McpToolsService {
  private readonly logger = new Logger('McpTools');

  constructor(
    private readonly registry: McpRegistry,
    private readonly options: McpResolvedOptions,
    private readonly invoker: McpHandlerInvoker,
    private readonly access: McpAccessPolicy,
  ) {}

  /**
   * The `Mcp-Param-*` headers a `tools/call` must send (the tool's `x-mcp-header` arguments), from the current
   * definition; `undefined` for an unknown tool, or one the `visibility` hook hides from `caller` (an HTTP caller),
   * which `call` refuses as unknown.
   */
  paramHeaders(
    params: JsonObject | undefined,
    caller?: { readonly principal?: string; readonly accessToken?: McpAccessToken },
  ): readonly ParamHeaderBinding[] | undefined {
    const entry = this.registry.getTool(String(params?.name));
    if (!entry || entry.paramHeaders.length === 0) return undefined;
    // Only HTTP transports ask, so the caller is a remote one.
    if (caller && this.access.hidesFromRemote(caller, entry.summary)) return undefined;
    return entry.paramHeaders;
  }

  /**
   * `tools/call`. `tasks` is how the call's wire turns a call of a tool with `task` into a task (its route passes
   * it; none: such a tool runs as an ordinary call).
   */
  async call(scope: McpRequestScope, tasks?: McpToolTaskStarter): Promise<JsonObject> {
    const name = requireString(scope.params, 'name');
    // Unknown here: with a shared registry state, another replica may have just registered it.
    const entry = this.registry.getTool(name) ?? (await this.registry.catchUp(), this.registry.getTool(name));
    if (!entry) throw unknownTool(name);
    // Authorization before anything about the call is judged or run (arguments, task creation, guards).
    this.access.admit(scope, entry.summary, unknownTool, name);
    const args = optionalObject(scope.params, 'arguments');

    let input: unknown = args;
    if (entry.input) {
      // JSON Schema and most Standard Schemas validate synchronously: no await (one microtask less per call) then.
      const validated = entry.input.validate(args);
      const outcome = validated instanceof Promise ? await validated : validated;
      if (!outcome.valid) return this.invalidArguments(name, formatIssues(outcome.issues, outcome.omitted));
      input = outcome.value;
    } else if (hasOwnKeys(args)) {
      return this.invalidArguments(name, `the tool takes no arguments, got ${formatKeys(args)}`);
    }

    // Only tools declared with `task` pay for this, and never inside a task's own round.
    if (entry.task !== undefined && scope.task === undefined && tasks) {
      const started = await tasks.start(scope, entry, input);
      if (started !== undefined) return started;
    }

    const outcome = await this.invoker.invoke(scope, name, entry.handler, input, (ledger) =>
      McpToolContext.open(scope, name, ledger),
    );
    if (outcome.kind === 'input_required') return outcome.result;
    if (outcome.kind === 'threw') {
      const failure = toolFailure(outcome.error, this.logger, name);
      if (failure instanceof McpError) throw failure;
      return errorResult(failure.text);
    }
    // Without an output schema the result is shaped synchronously.
    if (!entry.output)
      return (isCallToolResult(outcome.value) ? outcome.value : toolContentOf(outcome.value)) as unknown as JsonObject;
    return (await this.shapeStructured(entry, outcome.value)) as unknown as JsonObject;
  }

  private async shapeStructured(entry: ToolEntry, returned: unknown): Promise<McpCallToolResult> {
    if (isCallToolResult(returned)) {
      if (!returned.isError) await this.checkOutput(entry, returned.structuredContent);
      return returned;
    }
    const value = await this.checkOutput(entry, returned);
    return structuredToolResult(value);
  }

  /** The declared output schema is a promise to clients: a handler that breaks it is a server fault. */
  private async checkOutput(entry: ToolEntry, value: unknown): Promise<unknown> {
    const plain = toPlainJson(value);
    const outcome = await entry.output!.validate(plain);
    if (outcome.valid) return plain;
    this.logger.error(
      `Tool "${entry.definition.name}" returned a value that breaks its outputSchema: ${formatIssues(outcome.issues, outcome.omitted)}`,
    );
    throw McpError.internal(`Tool "${entry.definition.name}" produced an invalid result`);
  }

  private invalidArguments(name: string, detail: string): JsonObject {
    const message = `Invalid arguments for tool "${name}": ${detail}`;
    if (this.options.invalidToolArguments === 'protocol') throw McpError.invalidParams(message);
    return errorResult(message);
  }
}

/** What `tools/call` answers for a tool that does not exist, or that the caller may not see. */
function unknownTool(name: string): McpError {
  const shown = echoed(name);
  return McpError.invalidParams(`Unknown tool: ${shown}`, { name: shown });
}

/** Whether an object has an own key, without copying its keys (arguments may have hundreds of thousands). */
function hasOwnKeys(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

function errorResult(text: string): JsonObject {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Class instances (DTOs) become plain JSON, as they will on the wire. */
function toPlainJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return JSON.parse(JSON.stringify(value));
}
