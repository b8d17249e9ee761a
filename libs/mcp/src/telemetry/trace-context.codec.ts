import type { SpanContext } from '@opentelemetry/api';
import { MAX_TRACESTATE_LENGTH, parseTraceContext } from '../protocol/trace-context.parser.js';
import type { McpTraceContext } from '../protocol/trace-context.interface.js';
import type { OtelApi } from './otel-api.loader.js';

/**
 * A span context as W3C Trace Context strings, for work that starts elsewhere and links back to it (an emitted
 * event's deliveries): plain strings, never the API's objects, so that it travels through any store or queue.
 * Undefined for an invalid context; a `tracestate` beyond the stored bound is left out.
 */
export function toTraceContext(api: OtelApi, context: SpanContext | undefined): McpTraceContext | undefined {
  if (!context || !api.isSpanContextValid(context)) return undefined;
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  const tracestate = context.traceState?.serialize();
  const traceparent = `00-${context.traceId}-${context.spanId}-${flags}`;
  return tracestate && tracestate.length <= MAX_TRACESTATE_LENGTH ? { traceparent, tracestate } : { traceparent };
}

/**
 * The span context a stored trace context names (checked again: it may come from a shared store), as a remote
 * context to link to; undefined when it names none.
 */
export function spanContextOf(api: OtelApi, stored: unknown): SpanContext | undefined {
  const checked = parseTraceContext(stored);
  if (!checked) return undefined;
  const [, traceId, spanId, flags] = checked.traceparent.split('-');
  let traceState: SpanContext['traceState'];
  if (checked.tracestate !== undefined) {
    try {
      traceState = api.createTraceState(checked.tracestate);
    } catch {
      traceState = undefined;
    }
  }
  const traceFlags = Number.parseInt(flags, 16) & 0xff;
  const context: SpanContext = { traceId, spanId, traceFlags, isRemote: true, ...(traceState && { traceState }) };
  return api.isSpanContextValid(context) ? context : undefined;
}
