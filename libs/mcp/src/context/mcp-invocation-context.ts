import type { McpToolContext } from './mcp-tool.context.js';

/** The synthetic requests of route tools called over MCP, and the context of each call. */
const invocations = new WeakMap<object, McpToolContext>();

/**
 * The MCP context of a controller route called as a tool (`@McpTool()` beside `@Get()`…), from the request the route
 * received (`@Req()`, or `REQUEST` in a request-scoped provider); `undefined` when the route was called over plain
 * HTTP, so one method serves both:
 *
 * @example
 * ```ts
 * @Post(':id/reindex')
 * @McpTool({ name: 'reindex_incident' })
 * async reindex(@Param('id') id: string, @Req() request: unknown) {
 *   const progress = getMcpInvocationContext(request)?.countingProgress(3);
 *   for (const step of STEPS) { await run(step, id); progress?.emit(); }
 *   return { id, reindexed: true };
 * }
 * ```
 */
export function getMcpInvocationContext(request: unknown): McpToolContext | undefined {
  return typeof request === 'object' && request !== null ? invocations.get(request) : undefined;
}

/** @internal Marks `request` as the synthetic request of one MCP call of a route tool. */
export function bindMcpInvocation(request: object, context: McpToolContext): void {
  invocations.set(request, context);
}
