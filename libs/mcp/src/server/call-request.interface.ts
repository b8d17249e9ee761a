import type { JsonObject, JsonRpcId } from '../protocol/json-rpc.interface.js';
import type { McpTaskBinding } from '../protocol/mcp-request-scope.interface.js';
import type { McpRequestMeta } from '../protocol/request-meta.interface.js';
import type { IncomingMessage } from 'node:http';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import type { McpTraceContext } from '../protocol/trace-context.interface.js';
import type { McpRoute } from './mcp-route.interface.js';

/**
 * What the origin of a call knows about it, handed to `McpCallRunner.run`: a transport (HTTP, stdio, the testing
 * kit), a 2025-11-25 session, and later a task worker or a replica resuming a call. The origin describes; the runner
 * decides what the call gets (a quota slot, a timeout, a signal, a channel). An origin extends this with what its
 * own `CallPort` needs (e.g. HTTP adds its response and the accepted media types); the runner passes it through.
 */
export interface CallRequest {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: JsonObject;
  /** The per-request protocol fields (the 2026 `_meta` envelope, or a session's stand-ins for it). */
  readonly meta: McpRequestMeta;
  /**
   * The method's route, when the origin already looked it up for its own checks (HTTP: 404, 406, parameter
   * headers). Otherwise the runner looks it up, and an unknown method is answered `-32601` through the call's port.
   */
  readonly route?: McpRoute;
  /** The authenticated caller, when a principal source is configured. */
  readonly principal?: string;
  /**
   * The verified bearer token's content: set by the HTTP transport when `auth` is configured (its bearer check ran
   * before), or by the testing kit's `caller` option. `@McpScopes` is checked against its scopes.
   */
  readonly accessToken?: McpAccessToken;
  /** The peer address of the connection, when there is one (the per-address key of anonymous callers). */
  readonly remoteAddress?: string;
  /** The framework's request and response, handed to guards and `@McpHttpRequest()` (HTTP; the testing kit's request). */
  readonly httpRequest?: unknown;
  /**
   * Set by network transports only (HTTP, both wires): a call with a response object and no `accessToken` is a remote
   * caller without a token, for which `@McpScopes` fails closed; without one (stdio, the in-process testing kit) the
   * caller is local and trusted (`McpCaller`).
   */
  readonly httpResponse?: unknown;
  /**
   * Whether the call takes a slot of the calls-in-flight caps (`maxCallsInFlight…`): true over HTTP on both wires,
   * false on stdio (one client, which owns the process) and in the testing kit. Streams are never counted.
   */
  readonly admit: boolean;
  /** A task worker's round of a task (`scope.task`): set by the worker only, never from a client's input. */
  readonly task?: McpTaskBinding;
  /** The transport the call came in on (telemetry's `network.*`); absent for origins without one. */
  readonly transport?: 'http' | 'stdio';
  /** The Node request of an HTTP call (telemetry: HTTP version, peer port). */
  readonly incoming?: IncomingMessage;
  /** The 2025-11-25 session of the call (`Mcp-Session-Id`), for telemetry's `mcp.session.id`. */
  readonly sessionId?: string;
  /** A task round: the trace context of the request that created the task (the round's span links to it). */
  readonly causedBy?: McpTraceContext;
  /** A task round taken off a queue another process fills (durable runner). */
  readonly queued?: boolean;
}
