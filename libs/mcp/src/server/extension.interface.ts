import type { ToolEntry } from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRoute } from './mcp-route.interface.js';
import type { McpToolTaskStarter } from './tool-task.starter.js';

/**
 * What an extension's entry in `capabilities.extensions` is computed from: the tools the caller may see, for a
 * `server/discover` (or 2025-11-25 `initialize`) answered per caller; every tool for the server-wide capabilities
 * that gate the routes.
 */
export interface McpExtensionView {
  readonly tools: readonly ToolEntry[];
}

/**
 * An extension's face on the 2025-11-25 wire (sessions). An extension without one is not served there: its methods
 * answer `-32601` and `initialize` does not declare it.
 */
export interface McpLegacyFace {
  /** Its methods on that wire; absent: the same routes as on 2026-07-28. */
  routes?(): Iterable<readonly [method: string, route: McpRoute]>;
  /**
   * What the `initialize` result declares for it, given the entry `server/discover` shows the same caller: merged
   * into the result's capabilities (`undefined`: nothing). Absent: the same entry under `capabilities.extensions`.
   */
  capabilities?(entry: JsonObject): Readonly<JsonObject> | undefined;
  /** How a session's `tools/call` of a tool with `task` becomes a task there (absent: it runs as an ordinary call). */
  readonly toolTasks?: McpToolTaskStarter;
}

/**
 * The one contract a protocol extension implements to plug into the server (tasks, skills, MCP Apps, events; docs/
 * architecture.md, "How to add an extension"): its methods with their routes, what `server/discover` advertises for
 * it per caller, its face on the 2025-11-25 wire, and how a `tools/call` of a tool with `task` becomes a task. Read
 * when the wire profiles build their route tables (a method already routed is refused) and whenever the
 * capabilities are computed. `McpModule` lists the implementations under `MCP_EXTENSIONS`.
 */
export interface McpExtension {
  /** Its id, the key of `capabilities.extensions` (e.g. `io.modelcontextprotocol/skills`), and of its routes' gate. */
  readonly id: string;
  /**
   * Its methods on the 2026-07-28 wire. A route sets `extension: id` to exist only while the extension is advertised,
   * and `nameParam` for the `params` field an HTTP request's `Mcp-Name` header mirrors.
   */
  routes?(): Iterable<readonly [method: string, route: McpRoute]>;
  /**
   * Its settings in `capabilities.extensions` (`{}` when it has none) for what `view` shows, or `undefined` while it
   * is not advertised. Read once per registry version and extension revision (and per caller when discover is).
   */
  advertise(view: McpExtensionView): JsonObject | undefined;
  /**
   * Base capabilities that must be advertised whenever this extension is (e.g. `['resources']` for skills, SEP-2640):
   * kept in a caller's `server/discover` even when that caller may see nothing of that feature.
   */
  requiredCapabilities?(): readonly string[];
  /**
   * Top-level capabilities it advertises beside `extensions` (e.g. the events extension's compatibility key
   * `events: {}`, which deployed clients look for). They gate no route.
   */
  capabilities?(): Readonly<Record<string, JsonObject>>;
  /**
   * Grows whenever what `advertise` or `capabilities` answer may have changed outside the registry (something of this
   * extension was registered or removed at run time). Absent: they change with the registry.
   */
  revision?(): number;
  /** How a 2026-07-28 `tools/call` of a tool with `task` becomes a task (one extension provides it: tasks). */
  readonly toolTasks?: McpToolTaskStarter;
  /** Its face on the 2025-11-25 wire; absent: not served there. */
  readonly legacy?: McpLegacyFace;
}

/** Injection token of the extensions (an array of `McpExtension`). */
export const MCP_EXTENSIONS = Symbol('nest-mcp:extensions');
