import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRoute } from '../server/mcp-route.interface.js';
import type { McpLegacyFace } from '../server/extension.interface.js';
import type { McpToolTaskStarter } from '../server/tool-task.starter.js';

/**
 * The 2025-11-25 face of the tasks extension (`McpLegacyFace`), provided by legacy/ (a layer above): that revision's
 * own task methods (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`), its `tasks` capability instead of
 * the extension's entry, and how a session's `tools/call` becomes a task (the `task` param,
 * `execution.taskSupport`), on the same store and runner. Without a provider, sessions get no tasks: a task tool
 * runs as an ordinary call and `tasks/*` answer `-32601`.
 */
export abstract class LegacyTaskWire implements McpLegacyFace {
  abstract routes(): Iterable<readonly [string, McpRoute]>;
  abstract capabilities(entry: JsonObject): Readonly<JsonObject> | undefined;
  abstract readonly toolTasks: McpToolTaskStarter;
}
