import type { Attributes, Context, Link, Span, SpanContext, Tracer } from '@opentelemetry/api';
import type { McpResolvedTelemetryOptions } from '../config/resolved-options.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { parseTraceparent, type TraceIds } from '../protocol/traceparent.parser.js';
import type { McpTraceContext } from '../protocol/trace-context.interface.js';
import type { TelemetryOutcome } from './call-result.interface.js';
import type { TelemetryCall, TelemetryTarget } from './telemetry-call.interface.js';
import { isServerError } from './error-classification.js';
import type { McpInstruments } from './mcp-instruments.js';
import { META_GETTER } from './meta.getter.js';
import type { OtelApi } from './otel-api.loader.js';
import * as semconv from './semconv.js';

const PROTOCOL_VERSION = /^\d{4}-\d{2}-\d{2}$/;
/** Longer ids are left out of spans (a caller's id is unbounded input; mcp-handler keeps the same limit). */
const MAX_ID_LENGTH = 128;
/** Opt-in argument and result attributes are cut here (attribute length limit). */
const MAX_RECORDED_CHARS = 4096;

/** How the call's messages went, read off its response channel at the end. */
export interface TelemetryDelivery {
  /** Notifications (and server→client requests) sent before the answer. */
  readonly notifications: number;
  /** Of those, `notifications/progress`. */
  readonly progress: number;
  /** Whether an HTTP answer became an SSE stream (a notification came first, or the method streams). */
  readonly sse: boolean;
  /** Whether the call's signal was aborted by its client (disconnect, `notifications/cancelled`). */
  readonly cancelled: boolean;
  /** HTTP SSE: notifications the bounded queue replaced by a newer one of the same kind for a slow reader. */
  readonly coalesced?: number;
  /** HTTP SSE: notifications it dropped with nothing newer of their kind in their place. */
  readonly dropped?: number;
  /** HTTP SSE: whether it closed the stream because what waited could not be coalesced (`overflow: 'disconnect'`). */
  readonly overflowed?: boolean;
}

/**
 * The telemetry of one call: its SERVER span (when a tracer is registered) and its data point of
 * `mcp.server.operation.duration` (when a meter is). Made by `McpTelemetry.start` only when one of them is really
 * recording; the runner runs the handler inside `run`, and ends it with the outcome.
 */
export class RequestTelemetry {
  private readonly startedAt = performance.now();
  private readonly span?: Span;
  private readonly context?: Context;
  private readonly method: string;

  constructor(
    private readonly api: OtelApi,
    private readonly settings: McpResolvedTelemetryOptions,
    private readonly call: TelemetryCall,
    private readonly target: TelemetryTarget,
    tracer: Tracer | undefined,
    private readonly instruments: McpInstruments | undefined,
  ) {
    this.method = target.implemented ? call.method : semconv.OTHER;
    this.countOpen(1);
    if (!tracer) return;
    const { parent, links } = this.parentAndLinks();
    const round = call.task !== undefined;
    const kind = round ? (call.queued ? api.SpanKind.CONSUMER : api.SpanKind.INTERNAL) : api.SpanKind.SERVER;
    const span = tracer.startSpan(
      this.spanName(),
      { kind, links, attributes: { [semconv.ATTR_MCP_METHOD_NAME]: this.method } },
      parent,
    );
    this.span = span;
    this.context = api.trace.setSpan(parent, span);
    // Attributes are built only for a span that records (a sampler may have dropped it).
    if (span.isRecording()) span.setAttributes(this.spanAttributes());
  }

  /** Runs `fn` with the call's span as the active span: the handler's own spans and outbound calls nest under it. */
  run<T>(fn: () => T): T {
    return this.context ? this.api.context.with(this.context, fn) : fn();
  }

  /** The trace id and span id of the call's span (what progress events and log messages carry); undefined without one. */
  get traceIds(): TraceIds | undefined {
    const context = this.span?.spanContext();
    return context && this.api.isSpanContextValid(context)
      ? { traceId: context.traceId, spanId: context.spanId }
      : undefined;
  }

  /** The call's span as a W3C Trace Context, for work it starts elsewhere (a task's rounds link to it). */
  get traceContext(): McpTraceContext | undefined {
    const context = this.span?.spanContext();
    if (!context || !this.api.isSpanContextValid(context)) return undefined;
    const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
    const tracestate = context.traceState?.serialize();
    return { traceparent: `00-${context.traceId}-${context.spanId}-${flags}`, ...(tracestate && { tracestate }) };
  }

  /** Ends the span and records the duration, from the call's outcome and how its messages went. */
  end(outcome: TelemetryOutcome, delivery: TelemetryDelivery): void {
    const seconds = (performance.now() - this.startedAt) / 1000;
    const ended = describeOutcome(outcome, delivery.cancelled, this.settings.clientErrorCodes);
    const span = this.span;
    if (span?.isRecording()) {
      const attributes: Attributes = { [semconv.ATTR_NEST_MCP_OUTCOME]: ended.outcome };
      if (ended.statusCode !== undefined) attributes[semconv.ATTR_RPC_RESPONSE_STATUS_CODE] = ended.statusCode;
      if (ended.errorType !== undefined) attributes[semconv.ATTR_ERROR_TYPE] = ended.errorType;
      if (ended.taskId !== undefined) attributes[semconv.ATTR_NEST_MCP_TASK_ID] = ended.taskId;
      if (this.call.task) attributes[semconv.ATTR_NEST_MCP_TASK_STATUS] = roundStatus(ended.outcome);
      if (delivery.progress > 0) attributes[semconv.ATTR_NEST_MCP_PROGRESS_COUNT] = delivery.progress;
      if (delivery.notifications > 0) attributes[semconv.ATTR_NEST_MCP_NOTIFICATIONS_SENT] = delivery.notifications;
      if (delivery.coalesced) attributes[semconv.ATTR_NEST_MCP_NOTIFICATIONS_COALESCED] = delivery.coalesced;
      const lost = (delivery.dropped ?? 0) + (delivery.overflowed ? 1 : 0);
      if (lost > 0) attributes[semconv.ATTR_NEST_MCP_NOTIFICATIONS_DROPPED] = lost;
      if (this.call.origin === 'http') attributes[semconv.ATTR_NEST_MCP_SSE] = delivery.sse;
      if (
        this.settings.recordToolResults &&
        outcome.ok &&
        ended.outcome === 'success' &&
        this.call.method === 'tools/call'
      ) {
        attributes[semconv.ATTR_GEN_AI_TOOL_CALL_RESULT] = recorded(outcome.result);
      }
      span.setAttributes(attributes);
      if (ended.outcome === 'cancelled') span.addEvent('cancelled');
      if (ended.errorType !== undefined) {
        // The JSON-RPC message is already client-visible; a tool error result says nothing more than its type.
        span.setStatus({
          code: this.api.SpanStatusCode.ERROR,
          ...(ended.message !== undefined && { message: ended.message }),
        });
      }
    }
    span?.end();
    this.countOpen(-1);
    if (this.call.origin === 'http' && delivery.sse && !this.target.streaming)
      this.instruments?.sseUpgrades.add(1, { [semconv.ATTR_MCP_METHOD_NAME]: this.method });
    if (delivery.coalesced || delivery.dropped || delivery.overflowed) this.countQueueLosses(delivery);
    if (this.call.task) {
      this.instruments?.tasks.add(1, { [semconv.ATTR_NEST_MCP_TASK_STATUS]: roundStatus(ended.outcome) });
      this.instruments?.taskDuration.record(seconds, this.metricAttributes(ended));
      return;
    }
    this.instruments?.operationDuration.record(seconds, this.metricAttributes(ended));
  }

  /**
   * What the bounded queue of the call's SSE answer did for a slow reader, counted once when the call ends (the queue
   * only bumped integers on the channel): coalesced notifications, dropped ones (`queue_full`), and a stream closed
   * for it (`disconnect`). `nest_mcp.kind` says which queue policy applied: `request` (an answer: progress coalesces,
   * other notifications drop) or `stream` (`delivery: 'stream'`, e.g. `subscriptions/listen`: changes coalesce, the
   * rest disconnects).
   */
  private countQueueLosses(delivery: TelemetryDelivery): void {
    const instruments = this.instruments;
    if (!instruments) return;
    const method = this.method;
    const kind = this.target.streaming ? 'stream' : 'request';
    if (delivery.coalesced)
      instruments.streamCoalesced.add(delivery.coalesced, {
        [semconv.ATTR_MCP_METHOD_NAME]: method,
        [semconv.ATTR_NEST_MCP_KIND]: kind,
      });
    if (delivery.dropped)
      instruments.streamDropped.add(delivery.dropped, {
        [semconv.ATTR_MCP_METHOD_NAME]: method,
        [semconv.ATTR_NEST_MCP_KIND]: kind,
        [semconv.ATTR_NEST_MCP_REASON]: 'queue_full',
      });
    if (delivery.overflowed)
      instruments.streamDropped.add(1, {
        [semconv.ATTR_MCP_METHOD_NAME]: method,
        [semconv.ATTR_NEST_MCP_KIND]: kind,
        [semconv.ATTR_NEST_MCP_REASON]: 'disconnect',
      });
  }

  /** Calls in flight (listen streams on their own gauge): one up when the call starts, one down when it ends. */
  private countOpen(delta: 1 | -1): void {
    const instruments = this.instruments;
    if (!instruments || this.call.task) return;
    if (this.call.method === 'subscriptions/listen') instruments.listenStreams.add(delta);
    else if (!this.target.streaming)
      instruments.callsInFlight.add(delta, { [semconv.ATTR_MCP_METHOD_NAME]: this.method });
  }

  private parentAndLinks(): { parent: Context; links: Link[] } {
    const api = this.api;
    const ambient = api.context.active();
    const ambientSpan = api.trace.getSpanContext(ambient);
    const ambientLink = ambientSpan && api.isSpanContextValid(ambientSpan) ? [{ context: ambientSpan }] : [];
    if (this.call.causedBy) {
      // A task round: a new trace of its own, linked to the request that created the task (its sampling is its own).
      const creator = this.remoteContext(api.ROOT_CONTEXT, this.call.causedBy as unknown as Record<string, unknown>);
      const creatorSpan = creator && api.trace.getSpanContext(creator);
      return { parent: api.ROOT_CONTEXT, links: creatorSpan ? [{ context: creatorSpan }] : [] };
    }
    const fromMeta = this.remoteContext(ambient, this.call.meta.raw);
    // `_meta` wins: the MCP client's span is the parent whatever the transport; the HTTP span is a link.
    if (fromMeta) return { parent: fromMeta, links: ambientLink };
    // No trace context in `_meta`: the ambient span stays the parent, with the baggage `_meta` may still carry.
    return {
      parent: mergeBaggage(api, ambient, api.propagation.extract(api.ROOT_CONTEXT, this.call.meta.raw, META_GETTER)),
      links: [],
    };
  }

  /**
   * The context a carrier (`_meta`, a stored trace context) names, or undefined when it names none. The configured
   * propagators decide; without one registered, a valid W3C `traceparent` is read directly (SEP-414 names W3C).
   */
  private remoteContext(base: Context, carrier: Record<string, unknown>): Context | undefined {
    const api = this.api;
    const extracted = api.propagation.extract(api.ROOT_CONTEXT, carrier, META_GETTER);
    const remote = api.trace.getSpanContext(extracted);
    if (remote && api.isSpanContextValid(remote)) return mergeBaggage(api, base, extracted);
    const parsed = parseW3c(carrier.traceparent);
    if (!parsed) return undefined;
    const traceState = typeof carrier.tracestate === 'string' ? safeTraceState(api, carrier.tracestate) : undefined;
    const spanContext: SpanContext = { ...parsed, isRemote: true, ...(traceState && { traceState }) };
    return api.trace.setSpanContext(mergeBaggage(api, base, extracted), spanContext);
  }

  private spanName(): string {
    const call = this.call;
    if (call.task)
      return this.target.name ? `${semconv.GEN_AI_EXECUTE_TOOL} ${this.target.name}` : semconv.GEN_AI_EXECUTE_TOOL;
    return this.target.name ? `${this.method} ${this.target.name}` : this.method;
  }

  private spanAttributes(): Attributes {
    const call = this.call;
    const attributes: Attributes = { [semconv.ATTR_NEST_MCP_WIRE]: this.target.wire };
    if (!call.task) {
      const id = String(call.id);
      if (id.length <= MAX_ID_LENGTH) attributes[semconv.ATTR_JSONRPC_REQUEST_ID] = id;
    } else {
      attributes[semconv.ATTR_NEST_MCP_TASK_ID] = call.task.taskId;
    }
    this.addTargetAttributes(attributes);
    const version = call.meta.protocolVersion;
    if (typeof version === 'string' && PROTOCOL_VERSION.test(version))
      attributes[semconv.ATTR_MCP_PROTOCOL_VERSION] = version;
    // Only a 2025-11-25 session's calls carry a session id.
    if (call.sessionId !== undefined) attributes[semconv.ATTR_MCP_SESSION_ID] = call.sessionId;
    if (call.origin === 'http') {
      attributes[semconv.ATTR_NETWORK_TRANSPORT] = 'tcp';
      attributes[semconv.ATTR_NETWORK_PROTOCOL_NAME] = 'http';
      if (call.incoming?.httpVersion) attributes[semconv.ATTR_NETWORK_PROTOCOL_VERSION] = call.incoming.httpVersion;
      if (call.remoteAddress !== undefined) {
        attributes[semconv.ATTR_CLIENT_ADDRESS] = call.remoteAddress;
        const port = call.incoming?.socket?.remotePort;
        if (port !== undefined) attributes[semconv.ATTR_CLIENT_PORT] = port;
      }
    } else if (call.origin === 'stdio') {
      attributes[semconv.ATTR_NETWORK_TRANSPORT] = 'pipe';
    }
    return attributes;
  }

  private addTargetAttributes(attributes: Attributes): void {
    const { method, params } = this.call;
    const name = this.target.name;
    if (method === 'tools/call') {
      attributes[semconv.ATTR_GEN_AI_OPERATION_NAME] = semconv.GEN_AI_EXECUTE_TOOL;
      if (name !== undefined) attributes[semconv.ATTR_GEN_AI_TOOL_NAME] = name;
      if (this.settings.recordToolArguments && params.arguments !== undefined) {
        attributes[semconv.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = recorded(params.arguments);
      }
    } else if (method === 'prompts/get') {
      if (name !== undefined) attributes[semconv.ATTR_GEN_AI_PROMPT_NAME] = name;
      const args = params.arguments;
      if (this.settings.recordPromptVariables && typeof args === 'object' && args !== null && !Array.isArray(args)) {
        for (const [key, value] of Object.entries(args)) {
          attributes[`${semconv.ATTR_GEN_AI_PROMPT_VARIABLE_PREFIX}${key}`] =
            typeof value === 'string' ? value.slice(0, MAX_RECORDED_CHARS) : recorded(value);
        }
      }
    } else if (method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe') {
      if (typeof params.uri === 'string')
        attributes[semconv.ATTR_MCP_RESOURCE_URI] = params.uri.slice(0, MAX_RECORDED_CHARS);
    } else if (
      method.startsWith('tasks/') &&
      typeof params.taskId === 'string' &&
      params.taskId.length <= MAX_ID_LENGTH
    ) {
      attributes[semconv.ATTR_NEST_MCP_TASK_ID] = params.taskId;
    }
  }

  /** The metric's attributes: bounded values only (no ids, no session, no client address). */
  private metricAttributes(ended: EndedCall): Attributes {
    const call = this.call;
    const attributes: Attributes = { [semconv.ATTR_MCP_METHOD_NAME]: this.method };
    const name = this.target.name;
    if (call.method === 'tools/call') {
      attributes[semconv.ATTR_GEN_AI_OPERATION_NAME] = semconv.GEN_AI_EXECUTE_TOOL;
      if (name !== undefined) attributes[semconv.ATTR_GEN_AI_TOOL_NAME] = name;
    } else if (call.method === 'prompts/get' && name !== undefined) {
      attributes[semconv.ATTR_GEN_AI_PROMPT_NAME] = name;
    } else if (
      this.settings.resourceUriInMetrics &&
      call.method === 'resources/read' &&
      typeof call.params.uri === 'string'
    ) {
      attributes[semconv.ATTR_MCP_RESOURCE_URI] = call.params.uri;
    }
    if (ended.statusCode !== undefined) attributes[semconv.ATTR_RPC_RESPONSE_STATUS_CODE] = ended.statusCode;
    if (ended.errorType !== undefined) attributes[semconv.ATTR_ERROR_TYPE] = ended.errorType;
    const version = call.meta.protocolVersion;
    if (typeof version === 'string' && PROTOCOL_VERSION.test(version))
      attributes[semconv.ATTR_MCP_PROTOCOL_VERSION] = version;
    if (call.origin === 'http') {
      attributes[semconv.ATTR_NETWORK_TRANSPORT] = 'tcp';
      attributes[semconv.ATTR_NETWORK_PROTOCOL_NAME] = 'http';
      if (call.incoming?.httpVersion) attributes[semconv.ATTR_NETWORK_PROTOCOL_VERSION] = call.incoming.httpVersion;
    } else if (call.origin === 'stdio') {
      attributes[semconv.ATTR_NETWORK_TRANSPORT] = 'pipe';
    }
    return attributes;
  }
}

/** What the end of a call means for its span and metric (docs/observability.md, "Errors and outcomes"). */
interface EndedCall {
  readonly outcome:
    | 'success'
    | 'input_required'
    | 'task'
    | 'tool_error'
    | 'request_error'
    | 'server_error'
    | 'cancelled';
  readonly statusCode?: string;
  readonly errorType?: string;
  readonly message?: string;
  readonly taskId?: string;
}

function describeOutcome(
  outcome: TelemetryOutcome,
  cancelled: boolean,
  clientCodes: ReadonlySet<number> | undefined,
): EndedCall {
  if (!outcome.ok) {
    const statusCode = String(outcome.error.code);
    if (cancelled) return { outcome: 'cancelled', statusCode };
    if (!isServerError(outcome.error.code, clientCodes)) return { outcome: 'request_error', statusCode };
    return { outcome: 'server_error', statusCode, errorType: statusCode, message: outcome.error.message };
  }
  const result = outcome.result;
  if (result.resultType === 'input_required') return { outcome: 'input_required' };
  if (result.resultType === 'task')
    return { outcome: 'task', ...(typeof result.taskId === 'string' && { taskId: result.taskId }) };
  if (result.isError === true) return { outcome: 'tool_error', errorType: semconv.TOOL_ERROR };
  return { outcome: cancelled ? 'cancelled' : 'success' };
}

/** The task status a round's outcome leaves (as `TaskRound` writes it). */
function roundStatus(outcome: EndedCall['outcome']): string {
  if (outcome === 'input_required') return 'input_required';
  if (outcome === 'cancelled') return 'cancelled';
  if (outcome === 'success' || outcome === 'tool_error') return 'completed';
  return 'failed';
}

function parseW3c(value: unknown): { traceId: string; spanId: string; traceFlags: number } | undefined {
  const ids = parseTraceparent(value);
  if (!ids) return undefined;
  const flags = Number.parseInt((value as string).trim().slice(53, 55), 16);
  return { ...ids, traceFlags: Number.isNaN(flags) ? 0 : flags & 0xff };
}

function safeTraceState(api: OtelApi, value: string): ReturnType<OtelApi['createTraceState']> | undefined {
  try {
    return api.createTraceState(value.slice(0, 512));
  } catch {
    return undefined;
  }
}

/** The baggage the carrier brought, on top of `base` (the handler reads it; it is never copied into attributes). */
function mergeBaggage(api: OtelApi, base: Context, extracted: Context): Context {
  const baggage = api.propagation.getBaggage(extracted);
  const withBaggage = baggage ? api.propagation.setBaggage(base, baggage) : base;
  const remote = api.trace.getSpanContext(extracted);
  return remote && api.isSpanContextValid(remote) ? api.trace.setSpanContext(withBaggage, remote) : withBaggage;
}

/** An opt-in value as a bounded JSON string. */
function recorded(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value as JsonObject) ?? '';
  } catch {
    json = '';
  }
  return json.length > MAX_RECORDED_CHARS ? json.slice(0, MAX_RECORDED_CHARS) : json;
}
