/**
 * A W3C Trace Context as plain strings (`traceparent`, and `tracestate` when there is one): what a task record keeps
 * of the request that created it, so that its rounds, on any replica, link back to that request's span.
 */
export interface McpTraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}
