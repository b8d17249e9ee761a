/**
 * The OpenTelemetry names nest-mcp emits, copied from the semantic conventions for MCP (status Development,
 * `open-telemetry/semantic-conventions-genai` `docs/gen-ai/mcp.md`, `model/mcp/*.yaml`) and the stable registry.
 * Copied, not imported: `@opentelemetry/semantic-conventions/incubating` may change in a minor release, and
 * instrumentation libraries are asked to keep their own copy (that package's README). Custom names use the
 * `nest_mcp.` namespace; no `mcp.*` key is invented here.
 */

/** The JSON-RPC method (`tools/call`); `_OTHER` for a method the server does not implement. */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
/** 2025-11-25 sessions only: the 2026-07-28 wire has no session to name. */
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const ATTR_GEN_AI_PROMPT_VARIABLE_PREFIX = 'gen_ai.prompt.variable.';
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
export const ATTR_NETWORK_PROTOCOL_VERSION = 'network.protocol.version';
export const ATTR_CLIENT_ADDRESS = 'client.address';
export const ATTR_CLIENT_PORT = 'client.port';
/** Webhook delivery attempts (CLIENT spans): the receiver's host and port. */
export const ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_SERVER_PORT = 'server.port';
/** The HTTP status of a request refused at the HTTP edge, or that a webhook receiver answered (stable HTTP conventions). */
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';

/** `gen_ai.operation.name` of `tools/call` (and of a task's rounds). */
export const GEN_AI_EXECUTE_TOOL = 'execute_tool';
/** `error.type` of a tool result with `isError: true`. */
export const TOOL_ERROR = 'tool_error';
/** The value standing for a name outside the bounded set (unimplemented methods). */
export const OTHER = '_OTHER';

/** nest-mcp's own attributes (bounded values only). */
export const ATTR_NEST_MCP_OUTCOME = 'nest_mcp.outcome';
export const ATTR_NEST_MCP_WIRE = 'nest_mcp.wire';
export const ATTR_NEST_MCP_TASK_ID = 'nest_mcp.task.id';
export const ATTR_NEST_MCP_TASK_STATUS = 'nest_mcp.task.status';
export const ATTR_NEST_MCP_MRTR_ROUND = 'nest_mcp.mrtr.round';
export const ATTR_NEST_MCP_PROGRESS_COUNT = 'nest_mcp.progress.count';
export const ATTR_NEST_MCP_NOTIFICATIONS_SENT = 'nest_mcp.notifications.sent';
/** Notifications of the call a slow reader's queue replaced by a newer one of the same kind (HTTP SSE). */
export const ATTR_NEST_MCP_NOTIFICATIONS_COALESCED = 'nest_mcp.notifications.coalesced';
/** Notifications of the call lost to a slow reader's queue (HTTP SSE), the one that closed a stream included. */
export const ATTR_NEST_MCP_NOTIFICATIONS_DROPPED = 'nest_mcp.notifications.dropped';
export const ATTR_NEST_MCP_SSE = 'nest_mcp.sse';
export const ATTR_NEST_MCP_REASON = 'nest_mcp.reason';
export const ATTR_NEST_MCP_KIND = 'nest_mcp.kind';
/** The event type of a delivery or push span (registered names only: bounded). */
export const ATTR_NEST_MCP_EVENT_NAME = 'nest_mcp.event.name';
/** Which attempt of a webhook delivery a span is (1 for the first). */
export const ATTR_NEST_MCP_DELIVERY_ATTEMPT = 'nest_mcp.delivery.attempt';
/** The job state a `nest_mcp.task.queue.depth` data point counts: `waiting`, `delayed` or `active`. */
export const ATTR_NEST_MCP_STATE = 'nest_mcp.state';
/** The named server whose own task queue a `nest_mcp.task.queue.depth` data point counts (several servers, one app). */
export const ATTR_NEST_MCP_SERVER = 'nest_mcp.server';

/** Span names of event deliveries (`{operation} {event name}`): a webhook attempt, a push on `events/stream`. */
export const EVENTS_DELIVER = 'events/deliver';
export const EVENTS_PUSH = 'events/push';

/** The two MCP server metrics (histograms in seconds). */
export const METRIC_MCP_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration';
export const METRIC_MCP_SERVER_SESSION_DURATION = 'mcp.server.session.duration';

/** The advised explicit bucket boundaries of every MCP duration histogram, in seconds. */
export const MCP_DURATION_BUCKETS: readonly number[] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The library's own operational metrics, all under `nest_mcp.` (docs/observability.md, "Metrics"). */
export const METRIC_CALLS_IN_FLIGHT = 'nest_mcp.calls.in_flight';
export const METRIC_ADMISSION_REFUSALS = 'nest_mcp.admission.refusals';
export const METRIC_SSE_UPGRADES = 'nest_mcp.sse.upgrades';
export const METRIC_STREAM_COALESCED = 'nest_mcp.stream.coalesced';
export const METRIC_STREAM_DROPPED = 'nest_mcp.stream.dropped';
export const METRIC_LISTEN_STREAMS = 'nest_mcp.listen.streams';
export const METRIC_TASKS = 'nest_mcp.tasks';
export const METRIC_TASK_DURATION = 'nest_mcp.task.duration';
export const METRIC_TASK_QUEUE_DEPTH = 'nest_mcp.task.queue.depth';
export const METRIC_EVENT_DELIVERIES = 'nest_mcp.event.deliveries';
export const METRIC_EVENT_DELIVERY_RETRIES = 'nest_mcp.event.delivery.retries';

/** The instrumentation scope of every tracer and meter. */
export const INSTRUMENTATION_SCOPE = 'nest-mcp';
