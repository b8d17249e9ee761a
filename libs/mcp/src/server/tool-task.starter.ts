import type { ToolEntry } from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';

/**
 * Turns a `tools/call` of a tool with a `task` policy into a task, for `McpToolsService` (the implementation lives in
 * tasks/, a layer above). Called after argument validation, only for tools with `task` and only outside a task's own
 * rounds, so a plain `tools/call` never reaches it.
 */
export abstract class McpToolTaskStarter {
  /**
   * The `tools/call` result when the call becomes a task (`CreateTaskResult`) or asks for input first (an MRTR
   * `input_required` result of `beforeTask`); `undefined` to run the tool as an ordinary call. Throws `-32021` when
   * the tool requires a task and the request cannot take one.
   */
  abstract start(scope: McpRequestScope, entry: ToolEntry, input: unknown): Promise<JsonObject | undefined>;
}
