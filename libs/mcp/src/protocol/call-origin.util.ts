import { callerKey } from './admission-quota.js';
import type { McpRequestScope } from './mcp-request-scope.interface.js';

/**
 * Where a call came from: a remote HTTP client (both wires), the stdio client, the in-process testing kit, or a task
 * worker's round. Read here only, from what a scope carries today (`task`, the HTTP response, the HTTP request), so
 * that the origin calls will carry explicitly (issue #25) replaces this one function.
 */
export type McpCallOrigin = 'http' | 'stdio' | 'in-process' | 'task';

/** The facts of a scope the origin and the caller key are read from. */
export type McpCallFacts = Pick<McpRequestScope, 'task' | 'httpRequest' | 'httpResponse' | 'principal' | 'remoteAddress'>;

/** The origin of a call (see `McpCallOrigin`). */
export function callOriginOf(scope: McpCallFacts): McpCallOrigin {
  if (scope.task) return 'task';
  // Only network transports hand over a response; the testing kit hands over a plain request, stdio nothing.
  if (scope.httpResponse !== undefined) return 'http';
  return scope.httpRequest !== undefined ? 'in-process' : 'stdio';
}

/**
 * Who a call is counted and cached for (rate limits, `McpCacheInterceptor`), in the key space of the library's own
 * per-caller caps (`callerKey`): `p:<principal>` for an authenticated caller; otherwise, over HTTP, `a:<address>` —
 * the framework's `request.ip` (which honours Express's `trust proxy` and Fastify's `trustProxy`), else the socket's
 * peer address, an IPv6 address by its /64 — and off HTTP the origin itself (`stdio`: the one client that owns the
 * process; `in-process`: the test; `task`: a round of an anonymous task).
 */
export function callerKeyOf(scope: McpCallFacts): string {
  const origin = callOriginOf(scope);
  const ip = origin === 'http' ? (scope.httpRequest as { ip?: unknown } | undefined)?.ip : undefined;
  const address = typeof ip === 'string' && ip.length > 0 ? ip : scope.remoteAddress;
  return callerKey({ principal: scope.principal, address: origin === 'http' ? (address ?? 'unknown') : undefined }) ?? origin;
}
