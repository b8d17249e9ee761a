import { bindMcpInvocation } from './mcp-invocation-context.js';
import type { McpToolContext } from './mcp-tool.context.js';
import type { RouteToolBinding, RouteToolSource } from './route-tool.binding.js';

/** The parts of a synthetic request that the tool's arguments fill. */
type RequestParts = { body?: Record<string, unknown>; query: Record<string, unknown>; params: Record<string, unknown> };

const PART: Record<RouteToolSource, keyof RequestParts> = { body: 'body', query: 'query', param: 'params' };

/**
 * The request a controller route receives when it is called as a tool: a new object whose prototype is the request
 * the MCP call came with (so `headers`, `ip`, `user` and the framework's own getters read through to it), with its own
 * `params`, `query` and `body` made from the tool's arguments as `binding` says. Over stdio or in a task round, the
 * prototype is the stand-in request of the call (or an object with empty `headers`).
 *
 * `getMcpInvocationContext(request)` returns `context` for it (and for nothing else).
 */
export function routeToolRequest(
  transportRequest: unknown,
  input: unknown,
  binding: RouteToolBinding,
  context: McpToolContext,
): object {
  const base = typeof transportRequest === 'object' && transportRequest !== null ? transportRequest : { headers: {} };
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const parts: RequestParts = { query: {}, params: {} };
  const named = new Set<string>();
  for (const { source, name } of binding.named) {
    named.add(name);
    if (!Object.hasOwn(args, name)) continue;
    const part = PART[source];
    (parts[part] ??= {})[name] = args[name];
  }
  if (binding.rest) {
    // Without named arguments the whole object is the arguments as validated (a DTO instance stays one).
    const rest = named.size === 0 ? args : Object.fromEntries(Object.entries(args).filter(([key]) => !named.has(key)));
    const part = PART[binding.rest];
    parts[part] = parts[part] === undefined ? rest : { ...rest, ...parts[part] };
  }
  // Own properties defined, not assigned: Express 5 has a getter-only `query` on its request prototype. `body` and
  // `rawBody` are always shadowed: the MCP request's own are the JSON-RPC message, not the route's.
  const own = { params: parts.params, query: parts.query, body: parts.body, rawBody: undefined };
  const request = Object.create(base) as object;
  for (const [key, value] of Object.entries(own)) {
    Object.defineProperty(request, key, { value, writable: true, enumerable: true, configurable: true });
  }
  bindMcpInvocation(request, context);
  return request;
}
