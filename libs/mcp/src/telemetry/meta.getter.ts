import type { TextMapGetter } from '@opentelemetry/api';

/**
 * Reads W3C context keys from a request's `_meta` (SEP-414: `traceparent`, `tracestate`, `baggage`, unprefixed).
 * `_meta` is the caller's input: non-string values are ignored, never coerced.
 */
export const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
  keys: (carrier) => Object.keys(carrier),
};
