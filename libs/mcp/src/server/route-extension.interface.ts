import type { McpRoute } from './mcp-route.interface.js';

/**
 * Methods a layer above server/ adds to the dispatcher's route table (the tasks extension's `tasks/get`,
 * `tasks/update`, `tasks/cancel`): read once, when the dispatcher is built. A name already in the table is refused.
 */
export interface McpRouteExtension {
  routes(): Iterable<readonly [method: string, route: McpRoute]>;
}

/** Injection token of the route extensions (an array of `McpRouteExtension`). */
export const MCP_ROUTE_EXTENSIONS = Symbol('nest-mcp:route-extensions');
