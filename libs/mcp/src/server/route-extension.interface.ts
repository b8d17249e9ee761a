import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRoute } from './mcp-route.interface.js';

/**
 * What a layer above server/ adds to the server: methods in the dispatcher's route table (the tasks extension's
 * `tasks/get`, `tasks/update`, `tasks/cancel`), read once when the dispatcher is built (a name already in the table is
 * refused), and the protocol extensions it serves, advertised in `capabilities.extensions`.
 */
export interface McpRouteExtension {
  routes(): Iterable<readonly [method: string, route: McpRoute]>;
  /**
   * Extensions this layer serves right now, by id, with their settings (`{}` when none), e.g.
   * `{ 'io.modelcontextprotocol/skills': { directoryRead: true } }`. Advertised in `server/discover` (and in a
   * 2025-11-25 `initialize` result); read each time the capabilities are computed (once per registry version), so it
   * may depend on what is registered. Absent or empty: nothing is advertised.
   */
  extensions?(): Readonly<Record<string, JsonObject>>;
  /**
   * Base capabilities that must be advertised whenever this layer's extensions are (e.g. `['resources']` for skills,
   * SEP-2640): kept in a caller's `server/discover` even when that caller may see nothing of that feature.
   */
  requiredCapabilities?(): readonly string[];
  /**
   * Top-level capabilities this layer advertises beside `extensions` (e.g. the events extension's compatibility key
   * `events: {}`, which deployed clients look for), read with `extensions`. They gate no route.
   */
  capabilities?(): Readonly<Record<string, JsonObject>>;
  /**
   * Grows whenever what `extensions` or `capabilities` answer may have changed (something of this layer was
   * registered or removed at run time): the capabilities are computed again. Absent: they change with the registry.
   */
  revision?(): number;
}

/** Injection token of the route extensions (an array of `McpRouteExtension`). */
export const MCP_ROUTE_EXTENSIONS = Symbol('nest-mcp:route-extensions');
