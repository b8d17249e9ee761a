import type { McpTraceContext } from './trace-context.interface.js';
import { parseTraceparent } from './traceparent.parser.js';

/** Longest `traceparent` kept: version `00` is 55 characters; later versions may append fields. */
const MAX_TRACEPARENT_LENGTH = 256;
/** Longest `tracestate` kept: W3C Trace Context caps it at 32 list members, 512 characters is what propagators keep. */
export const MAX_TRACESTATE_LENGTH = 512;
/** `tracestate` is a list of printable ASCII members (W3C Trace Context §3.3). */
const TRACESTATE = /^[\x20-\x7e]*$/;

/**
 * Reads a stored trace context (a task record's, an event occurrence's, a queued delivery's) as untrusted input: a
 * shared store or queue is a trust boundary. Returns a fresh object with a valid W3C `traceparent` and, when it is a
 * bounded printable string, its `tracestate`; anything else yields `undefined` (the link is lost, nothing fails).
 *
 * @example parseTraceContext({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })
 */
export function parseTraceContext(value: unknown): McpTraceContext | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  if (typeof traceparent !== 'string' || traceparent.length > MAX_TRACEPARENT_LENGTH) return undefined;
  if (!parseTraceparent(traceparent)) return undefined;
  const state =
    typeof tracestate === 'string' &&
    tracestate.length > 0 &&
    tracestate.length <= MAX_TRACESTATE_LENGTH &&
    TRACESTATE.test(tracestate)
      ? tracestate
      : undefined;
  const trimmed = traceparent.trim();
  return state === undefined ? { traceparent: trimmed } : { traceparent: trimmed, tracestate: state };
}
