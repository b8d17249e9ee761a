import type { McpTraceContext } from '../protocol/trace-context.interface.js';

/**
 * What the events extension needs of `McpTelemetry`, spelled structurally: the published declarations of its public
 * classes (`McpEvents`, `McpEventsExtension`) must not reach `@opentelemetry/api`, an optional peer.
 */
export interface EventTelemetry {
  /**
   * The active span as W3C Trace Context, when an OpenTelemetry SDK records: what an emitted occurrence keeps so that
   * its deliveries link back to it. Undefined (and nothing built) without an SDK or outside any span.
   */
  captureContext(): McpTraceContext | undefined;
  /**
   * Spans for the occurrences one `events/stream` pushes, children of the stream's span (the active one now), each
   * linked to the span the occurrence was emitted in. Undefined when nothing records.
   */
  streamPushes(): EventPushSpans | undefined;
}

/** The push spans of one `events/stream`. */
export interface EventPushSpans {
  /** Opens the span of one pushed occurrence; `end(sent)` says whether its frame was written. */
  start(eventName: string, causedBy: McpTraceContext | undefined): { end(sent: boolean): void };
}

/** One webhook delivery attempt, as the delivery worker describes it to telemetry. */
export interface DeliveryAttempt {
  readonly kind: 'event' | 'gap' | 'terminated';
  /** The event type (`event` deliveries): the span's target. */
  readonly eventName?: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** The span the occurrence was emitted in: the attempt's span links to it. */
  readonly causedBy?: McpTraceContext;
  /** Where it is POSTed: only its host and port are recorded (never the path, query or secret). */
  readonly url: URL;
}

/** How an attempt ended: its answer's status, or the failure category when there was none. */
export interface DeliveryAttemptResult {
  /** `delivered` (2xx), `retry` (another attempt is queued), `abandoned` (given up on: 410, 413, or out of attempts). */
  readonly outcome: 'delivered' | 'retry' | 'abandoned';
  /** The HTTP status the endpoint answered, when it answered. */
  readonly status?: number;
  /** The SEP-3415 `lastError` category of a failed attempt (`timeout`, `http_5xx`, …). */
  readonly failure?: string;
}
