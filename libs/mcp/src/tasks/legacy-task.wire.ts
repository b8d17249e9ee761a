import type { ToolEntry } from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';

/**
 * The 2025-11-25 face of tasks, provided by legacy/ (a layer above): how a `tools/call` of a session becomes a task
 * (the `task` param, `execution.taskSupport`) and how `tasks/get`, `tasks/cancel` (and the methods only that wire
 * has) answer there, on the same store and runner. Without a provider, sessions get no tasks: a task tool runs as an
 * ordinary call and `tasks/*` answer `-32601`.
 */
export abstract class LegacyTaskWire {
  /** Like `McpToolTaskStarter.start`, for a call on a 2025-11-25 session. */
  abstract startCall(scope: McpRequestScope, entry: ToolEntry, input: unknown): Promise<JsonObject | undefined>;
  /** Answers a routed `tasks/*` method (`tasks/get`, `tasks/cancel`) on a 2025-11-25 session. */
  abstract handle(scope: McpRequestScope): Promise<JsonObject>;
}
