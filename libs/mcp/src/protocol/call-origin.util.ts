import { callerKey } from './admission-quota.js';
import type { McpRequestScope } from './mcp-request-scope.interface.js';

/**
 * Where a call came from: a remote HTTP client (both wires), the stdio client, the in-process testing kit, or a task
 * worker's round. Said by whoever starts the call (`CallRequest.origin`) and carried on its scope: who is trusted
 * (`McpCaller.trusted`) and whom a call is counted for follow from it, never from which HTTP objects a call has.
 */
export type McpCallOrigin = 'http' | 'stdio' | 'in-process' | 'task';

/** The facts of a scope the caller key is read from. */
export type McpCallFacts = Pick<McpRequestScope, 'origin' | 'httpRequest' | 'principal' | 'remoteAddress'>;

/**
 * Who a call is counted and cached for (rate limits, `McpCacheInterceptor`), in the key space of the library's own
 * per-caller caps (`callerKey`): `p:<principal>` for an authenticated caller; otherwise, over HTTP, `a:<address>` —
 * the framework's `request.ip` (which honours Express's `trust proxy` and Fastify's `trustProxy`), else the socket's
 * peer address, an IPv6 address by its /64 — and off HTTP the origin itself (`stdio`: the one client that owns the
 * process; `in-process`: the test; `task`: a round of an anonymous task).
 */
export function callerKeyOf(scope: McpCallFacts): string {
  const origin = scope.origin;
  const ip = origin === 'http' ? (scope.httpRequest as { ip?: unknown } | undefined)?.ip : undefined;
  const address = typeof ip === 'string' && ip.length > 0 ? ip : scope.remoteAddress;
  return (
    callerKey({ principal: scope.principal, address: origin === 'http' ? (address ?? 'unknown') : undefined }) ?? origin
  );
}
