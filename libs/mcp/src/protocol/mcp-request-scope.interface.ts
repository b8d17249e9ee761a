import type { CallCancellation } from './call-cancellation.js';
import type { JsonObject, JsonRpcId } from './json-rpc.interface.js';
import type { McpRequestMeta } from './request-meta.interface.js';
import type { ResponseChannel } from './response-channel.js';
import type { McpAccessToken } from './access-token.interface.js';
import type { McpCallOrigin } from './call-origin.util.js';
import type { McpCallSettings } from './call-settings.interface.js';
import type { McpTraceContext } from './trace-context.interface.js';
import type { TraceIds } from './traceparent.parser.js';

/**
 * Server→client requests answered in-process (2025-11-25 sessions): resolves with the client's result, or throws
 * an `McpError` when the client answered with an error or not at all.
 */
export interface LiveClientRequests {
  request(method: string, params?: Readonly<Record<string, unknown>>): Promise<unknown>;
}

/** Marks a call as one round of a task: its handler runs inside the task, never creates another. */
export interface McpTaskBinding {
  readonly taskId: string;
  /**
   * The task's guards ran when it was created (`McpTaskRecord.authorizedAtCreation`): its rounds run the pipeline
   * without them. Otherwise rounds run the guards too, against a request without HTTP (failing closed).
   */
  readonly authorized?: boolean;
}

/** Everything one incoming request carries through the layers (internal). */
export interface McpRequestScope {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: JsonObject;
  readonly meta: McpRequestMeta;
  /** Aborts when the client goes away, the call times out or the server shuts down (`ctx.signal`). */
  readonly cancellation: CallCancellation;
  /** Where notifications and the final response of this request go. */
  readonly channel: ResponseChannel;
  /** The HTTP request and response (Express or Fastify objects), when the call came over HTTP. */
  readonly httpRequest?: unknown;
  readonly httpResponse?: unknown;
  /** The authenticated caller, when a principal source is configured (with `auth`: from the verified token). */
  readonly principal?: string;
  /** The verified bearer token's content, when `auth` is configured and the call came over HTTP (scopes, claims). */
  readonly accessToken?: McpAccessToken;
  /**
   * The peer address of the connection (`request.socket.remoteAddress`), when the call came over HTTP: the key of
   * per-address caps for callers without a principal. Behind a proxy it is the proxy's address.
   */
  readonly remoteAddress?: string;
  /** Where the call came from (its transport, the testing kit, a task round): who is trusted follows from it. */
  readonly origin: McpCallOrigin;
  /** The module settings a handler's context reads (`ctx.log`, `ctx.progressFrom`), set by the call runner. */
  readonly settings: McpCallSettings;
  /** Present on the legacy wire: `ctx.elicit` sends real requests instead of ending the round. */
  readonly liveRequests?: LiveClientRequests;
  /**
   * Receives the handler's validated progress when the request carried no progress token (module option
   * `progress: 'stderr'`): the report is written as an NDJSON `ProgressEvent` instead of being dropped.
   */
  readonly progressFallback?: (progress: number, total: number | undefined, message: string | undefined) => void;
  /** Set when the call is a round of a task (its worker's request), never by a client. */
  readonly task?: McpTaskBinding;
  /**
   * The ids of the call's own span, when telemetry records one (docs/observability.md): what progress events, log
   * messages and `aroundHandler` carry. Absent, they fall back to the request's `_meta.traceparent`.
   */
  readonly trace?: TraceIds;
  /** The call's span as a W3C Trace Context, for work the call starts elsewhere (a task links its rounds to it). */
  readonly traceContext?: McpTraceContext;
}
