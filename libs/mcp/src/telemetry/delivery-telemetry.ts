import type { Attributes, Context, Link, Span, Tracer } from '@opentelemetry/api';
import type { McpTraceContext } from '../protocol/trace-context.interface.js';
import type { DeliveryAttempt, DeliveryAttemptResult, EventPushSpans } from './event-telemetry.interface.js';
import type { OtelApi } from './otel-api.loader.js';
import * as semconv from './semconv.js';
import { spanContextOf } from './trace-context.codec.js';

/**
 * The span of one webhook delivery attempt: `events/deliver {event name}` (`events/deliver` for a `gap` or
 * `terminated` envelope), kind CLIENT (one outbound request and its answer), a trace of its own linked to the span
 * the occurrence was emitted in (docs/observability.md, "Events"; ADR 0034). The POST runs inside it, so an HTTP
 * client instrumentation's span nests under it.
 */
export class DeliveryTelemetry {
  private readonly span: Span;
  private readonly context: Context;

  constructor(
    private readonly api: OtelApi,
    tracer: Tracer,
    attempt: DeliveryAttempt,
  ) {
    const name =
      attempt.kind === 'event' && attempt.eventName
        ? `${semconv.EVENTS_DELIVER} ${attempt.eventName}`
        : semconv.EVENTS_DELIVER;
    // A new root: the attempt is sampled on its own (a retry hours later is not the emitter's trace), linked back.
    this.span = tracer.startSpan(
      name,
      { kind: api.SpanKind.CLIENT, links: linksTo(api, attempt.causedBy) },
      api.ROOT_CONTEXT,
    );
    this.context = api.trace.setSpan(api.ROOT_CONTEXT, this.span);
    if (!this.span.isRecording()) return;
    const attributes: Attributes = {
      [semconv.ATTR_NEST_MCP_KIND]: attempt.kind,
      [semconv.ATTR_NEST_MCP_DELIVERY_ATTEMPT]: attempt.attempt,
      [semconv.ATTR_SERVER_ADDRESS]: attempt.url.hostname,
      [semconv.ATTR_SERVER_PORT]: Number(attempt.url.port || (attempt.url.protocol === 'https:' ? 443 : 80)),
    };
    if (attempt.eventName) attributes[semconv.ATTR_NEST_MCP_EVENT_NAME] = attempt.eventName;
    this.span.setAttributes(attributes);
  }

  /** Runs the attempt's POST with its span active. */
  run<T>(fn: () => T): T {
    return this.api.context.with(this.context, fn);
  }

  /** Ends the span with the attempt's outcome: any outcome but `delivered` is an error (`error.type`). */
  end(result: DeliveryAttemptResult): void {
    const span = this.span;
    if (span.isRecording()) {
      const attributes: Attributes = { [semconv.ATTR_NEST_MCP_OUTCOME]: result.outcome };
      if (result.status !== undefined) attributes[semconv.ATTR_HTTP_RESPONSE_STATUS_CODE] = result.status;
      if (result.outcome !== 'delivered') {
        // As the HTTP client conventions do: the status as a string when there was an answer, else the category.
        attributes[semconv.ATTR_ERROR_TYPE] =
          result.status !== undefined ? String(result.status) : (result.failure ?? semconv.OTHER);
        span.setStatus({ code: this.api.SpanStatusCode.ERROR });
      }
      span.setAttributes(attributes);
    }
    span.end();
  }
}

/**
 * The push spans of one `events/stream`: `events/push {event name}`, INTERNAL, children of the stream's SERVER span
 * (`parent`), each linked to the span its occurrence was emitted in.
 */
export class StreamPushTelemetry implements EventPushSpans {
  constructor(
    private readonly api: OtelApi,
    private readonly tracer: Tracer,
    private readonly parent: Context,
  ) {}

  start(eventName: string, causedBy: McpTraceContext | undefined): { end(sent: boolean): void } {
    const api = this.api;
    const span = this.tracer.startSpan(
      `${semconv.EVENTS_PUSH} ${eventName}`,
      { kind: api.SpanKind.INTERNAL, links: linksTo(api, causedBy) },
      this.parent,
    );
    if (span.isRecording()) span.setAttribute(semconv.ATTR_NEST_MCP_EVENT_NAME, eventName);
    return {
      end: (sent) => {
        if (span.isRecording()) span.setAttribute(semconv.ATTR_NEST_MCP_OUTCOME, sent ? 'sent' : 'dropped');
        span.end();
      },
    };
  }
}

function linksTo(api: OtelApi, causedBy: McpTraceContext | undefined): Link[] {
  const context = causedBy && spanContextOf(api, causedBy);
  return context ? [{ context }] : [];
}
