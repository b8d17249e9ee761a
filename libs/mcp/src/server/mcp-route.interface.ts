import type { ParamHeaderBinding } from '../protocol/param-header-binding.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import type { McpMethodHandler } from './mcp-feature.interface.js';

/**
 * How the answer of a method travels. `response`: notifications maybe, then one final response; the call is timed
 * (`callTimeoutMs`) and, where its transport counts calls, takes a slot of the calls-in-flight caps. `stream`: a
 * stream that lasts until the client closes it (`subscriptions/listen`); a transport with media types requires that
 * the client accept `text/event-stream`, the stream gets the bounds of long-lived streams, and it is neither timed nor
 * counted (such routes cap their streams themselves).
 */
export type McpRouteDelivery = 'response' | 'stream';

/**
 * One method of the dispatcher's route table: its handler and everything a transport or the call runner needs to
 * know about it, so that a new method needs no change in any transport. Read it through the call's wire profile
 * (`McpWireProfile.findRoute`; HTTP: `McpModernWire.route`).
 */
export interface McpRoute {
  /** The server capability that must be advertised for the method to exist (`-32601` otherwise). */
  readonly capability?: string;
  /** The extension that must be advertised in `capabilities.extensions` for the method to exist (`-32601` otherwise). */
  readonly extension?: string;
  readonly handle: McpMethodHandler;
  readonly delivery: McpRouteDelivery;
  /**
   * Whether the client going away (an HTTP response closing before its end) aborts the call's signal. The
   * 2025-11-25 wire never does (spec 2025-11-25: basic/transports, "Sending Messages to the Server"): its
   * transports ignore this.
   */
  readonly cancellableByDisconnect: boolean;
  /**
   * The `Mcp-Param-*` headers (spec 2026-07-28: basic/transports/streamable-http,
   * "Custom Headers from Tool Parameters") that must mirror values of this request's `params.arguments`, checked by
   * transports that carry headers after the method is known (ADR 0009); `undefined` or empty: none. Read from the
   * current definition, so a client with a stale schema gets `-32020` and re-lists. `caller` is who sends the request
   * (its principal and verified token, as the call will get them): a tool hidden from it has no headers to check, so
   * it is refused as an unknown tool, not by a header mismatch that would reveal it.
   */
  readonly paramHeaders?: (
    params: JsonObject | undefined,
    caller?: { readonly principal?: string; readonly accessToken?: McpAccessToken },
  ) => readonly ParamHeaderBinding[] | undefined;
  /**
   * The `params` field an HTTP request's `Mcp-Name` header must carry (spec 2026-07-28:
   * basic/transports/streamable-http, "Standard Request Headers": `tools/call` `name`, `prompts/get` `name`,
   * `resources/read` `uri`; ext-tasks spec 2026-07-28: tasks, "Streamable HTTP: Routing Headers": `taskId`): missing
   * or different → `-32020`. A core method's header is checked with the other standard headers, before `_meta`; an
   * extension's (a route with `extension`) once the route is known to exist (ADR 0009).
   */
  readonly nameParam?: string;
}
