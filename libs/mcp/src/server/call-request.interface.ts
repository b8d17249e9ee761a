import type { JsonObject, JsonRpcId } from '../protocol/json-rpc.interface.js';
import type { McpTaskBinding } from '../protocol/mcp-request-scope.interface.js';
import type { McpRequestMeta } from '../protocol/request-meta.interface.js';
import type { IncomingMessage } from 'node:http';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import type { McpCallOrigin } from '../protocol/call-origin.util.js';
import type { McpTraceContext } from '../protocol/trace-context.interface.js';
import type { McpRoute } from './mcp-route.interface.js';
import type { McpWireProfile } from './wire-profile.interface.js';

/**
 * What the origin of a call knows about it, handed to `McpCallRunner.run`: a transport (HTTP, stdio, the testing
 * kit, on either wire) or a task worker. The origin describes, once: where the call comes from (`origin`) and which
 * wire it speaks (`wire`); the runner decides what the call gets (a quota slot, a timeout, a signal, a channel). An
 * origin extends this with what its own `CallPort` needs (e.g. HTTP adds its response and the accepted media types);
 * the runner passes it through.
 */
export interface CallRequest {
  /** Where the call comes from: who is trusted, and whom it is counted for, follow from it. */
  readonly origin: McpCallOrigin;
  /** The wire the call speaks, chosen by its origin: its routes, final shapes and statuses (`McpWireProfile`). */
  readonly wire: McpWireProfile;
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: JsonObject;
  /** The per-request protocol fields (the 2026 `_meta` envelope, or a session's stand-ins for it). */
  readonly meta: McpRequestMeta;
  /**
   * The method's route, when the origin already looked it up on its wire for its own checks (HTTP: 404, 406,
   * parameter headers). Otherwise the runner asks the wire, and an unknown method is answered `-32601`.
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
  readonly httpResponse?: unknown;
  /**
   * Whether the call takes a slot of the calls-in-flight caps (`maxCallsInFlight…`): true over HTTP on both wires,
   * false on stdio (one client, which owns the process) and in the testing kit. Streams are never counted.
   */
  readonly admit: boolean;
  /** A task worker's round of a task (`scope.task`): set by the worker only, never from a client's input. */
  readonly task?: McpTaskBinding;
  /** The Node request of an HTTP call (telemetry: HTTP version, peer port). */
  readonly incoming?: IncomingMessage;
  /** The 2025-11-25 session of the call (`Mcp-Session-Id`), for telemetry's `mcp.session.id`. */
  readonly sessionId?: string;
  /** A task round: the trace context of the request that created the task (the round's span links to it). */
  readonly causedBy?: McpTraceContext;
  /** A task round taken off a queue another process fills (durable runner). */
  readonly queued?: boolean;
}
