/** The correlation ids of a W3C Trace Context `traceparent` value. */
export interface TraceIds {
  /** 32 lower-case hex digits, never all zeros. */
  traceId: string;
  /** The parent span: 16 lower-case hex digits, never all zeros. */
  spanId: string;
}

/**
 * The `_meta` key that carries W3C Trace Context (exempt from the `_meta` prefix rule; spec 2026-07-28: basic/index,
 * "`_meta`").
 */
export const TRACEPARENT_META_KEY = 'traceparent';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS = /^0+$/;

/**
 * Reads the trace and span ids of a `traceparent` value (W3C Trace Context §3.2). Anything invalid — wrong shape,
 * upper-case hex, version `ff`, all-zero ids, or trailing data on version `00` — yields `undefined`: a broken header
 * must never fail a request, it only loses the correlation.
 *
 * @example parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01') // { traceId: '4bf9…', spanId: '00f0…' }
 */
export function parseTraceparent(value: unknown): TraceIds | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, , rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ZEROS.test(traceId) || ZEROS.test(spanId)) return undefined;
  return { traceId, spanId };
}
