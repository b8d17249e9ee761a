import { parseTraceparent, type TraceIds } from '../protocol/traceparent.parser.js';
import type { ProgressEvent } from './progress-event.interface.js';
import { isJsonObject } from '../protocol/json-object.util.js';

/** What a progress report says, before it is stamped: the values of `notifications/progress`. */
export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

/** How one NDJSON line read back: a progress event, a line that claims to be one but is malformed, or anything else. */
export type ProgressLine =
  | { kind: 'event'; event: ProgressEvent }
  | { kind: 'invalid'; reason: string }
  | { kind: 'other' };

/**
 * Stamps a report as a `ProgressEvent`: the time now, and correlation ids — `traceIds` when given (the call's own
 * span, docs/observability.md), else those of `traceparent` (the request's `_meta.traceparent`) when it is a valid
 * W3C value.
 */
export function createProgressEvent(
  report: ProgressReport,
  context: { traceparent?: unknown; traceIds?: TraceIds; now?: Date } = {},
): ProgressEvent {
  const ids = context.traceIds ?? parseTraceparent(context.traceparent);
  // Built in contract order, so that the object serialises the same way as formatProgressEvent writes it.
  return {
    type: 'progress',
    progress: report.progress,
    ...(report.total !== undefined && { total: report.total }),
    ...(report.message !== undefined && { message: report.message }),
    timestamp: (context.now ?? new Date()).toISOString(),
    ...(ids && { traceId: ids.traceId, spanId: ids.spanId }),
  };
}

/** One NDJSON line (with its `\n`) for an event, keys in contract order. */
export function formatProgressEvent(event: ProgressEvent): string {
  const line: Record<string, unknown> = { type: 'progress', progress: event.progress };
  if (event.total !== undefined) line.total = event.total;
  if (event.message !== undefined) line.message = event.message;
  line.timestamp = event.timestamp;
  if (event.traceId !== undefined) line.traceId = event.traceId;
  if (event.spanId !== undefined) line.spanId = event.spanId;
  return `${JSON.stringify(line)}\n`;
}

/**
 * Reads one line of a stream that may mix `ProgressEvent`s with other output. A JSON object with
 * `"type":"progress"` must have the contract's shape, or it is `invalid`; everything else is `other`. A missing
 * `timestamp` is stamped with `now` (scripts may leave it out). Whether the values follow each other correctly is
 * for the emitter to check.
 */
export function parseProgressLine(line: string, now: () => Date = () => new Date()): ProgressLine {
  const text = line.trim();
  if (!text.startsWith('{')) return { kind: 'other' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'other' };
  }
  if (!isJsonObject(value) || value.type !== 'progress') return { kind: 'other' };
  if (typeof value.progress !== 'number') return { kind: 'invalid', reason: 'progress must be a number' };
  if (value.total !== undefined && typeof value.total !== 'number')
    return { kind: 'invalid', reason: 'total must be a number' };
  if (value.message !== undefined && typeof value.message !== 'string')
    return { kind: 'invalid', reason: 'message must be a string' };
  for (const key of ['timestamp', 'traceId', 'spanId'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string')
      return { kind: 'invalid', reason: `${key} must be a string` };
  }
  const event: ProgressEvent = {
    type: 'progress',
    progress: value.progress,
    ...(value.total !== undefined && { total: value.total as number }),
    ...(value.message !== undefined && { message: value.message as string }),
    timestamp: (value.timestamp as string | undefined) ?? now().toISOString(),
    ...(value.traceId !== undefined && { traceId: value.traceId as string }),
    ...(value.spanId !== undefined && { spanId: value.spanId as string }),
  };
  return { kind: 'event', event };
}
