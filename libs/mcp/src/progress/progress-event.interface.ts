/**
 * One progress report as a line of NDJSON: nest-mcp's progress contract for everything that is not an MCP
 * `notifications/progress` — the server's stderr, a wrapped command's stderr, the `nest-mcp` CLI in a pipe.
 *
 * ```json
 * {"type":"progress","progress":3,"total":10,"message":"Indexed 3 of 10 files","timestamp":"2026-11-29T12:00:00.000Z","traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7"}
 * ```
 *
 * The rules:
 * - one event per line, UTF-8, terminated by `\n`, no line breaks inside (JSON escapes them);
 * - keys in the order above; optional keys are left out rather than set to `null`;
 * - `progress` is a finite number that strictly increases within one stream; `total`, when present, is a finite
 *   number greater than 0 (a hint, not a bound); `message` is for people;
 * - `timestamp` is when the progress was reported, ISO 8601 in UTC (`Date.prototype.toISOString`);
 * - `traceId` and `spanId` come from the W3C `traceparent` of the request the work belongs to (its `_meta`), when
 *   it had a valid one, so a log pipeline can join the events to the trace.
 *
 * Writers: the server on stderr with the module option `progress: 'stderr'` (for requests without a progress
 * token); `nest-mcp call` on stderr when stderr is not a terminal.
 * Readers: `ctx.progressFrom(readable)`, which also accepts lines without `timestamp` or trace ids, so that a shell
 * script may print just `{"type":"progress","progress":1,"total":3}`.
 *
 * Note: the DOM library has a global `ProgressEvent` type too; import this one by name from `nest-mcp/progress` (or
 * `nest-mcp/backend`).
 */
export interface ProgressEvent {
  /** Always `'progress'`: tells these lines apart from other NDJSON on the same stream. */
  type: 'progress';
  /** How far the work is; strictly increasing within one stream. */
  progress: number;
  /** The expected end value, when known. */
  total?: number;
  /** A human-readable description of the current step. */
  message?: string;
  /** When the progress was reported (ISO 8601, UTC). */
  timestamp: string;
  /** The trace id of the request's `traceparent`, 32 lower-case hex digits. */
  traceId?: string;
  /** The parent span id of the request's `traceparent`, 16 lower-case hex digits. */
  spanId?: string;
}
