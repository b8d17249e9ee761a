import type { McpTraceContext } from './trace-context.interface.js';

/**
 * One occurrence of an event type as it was emitted (`McpEvents.emit`), before any subscription's matcher ran: what the
 * replay log keeps. Plain JSON, so that any store (Redis Streams, …) can carry it.
 */
export interface McpStoredEvent {
  /** The occurrence's stable id (the same on every path and every retry). */
  readonly eventId: string;
  /** The event type. */
  readonly name: string;
  /** When the event happened, ISO 8601 with an offset. */
  readonly timestamp: string;
  /** What the application emitted; each subscription's matcher turns it into (or refuses it as) its payload. */
  readonly data: Record<string, unknown>;
  /** When it was appended (ms since the epoch): the replay window and `maxAgeMs` judge this time. */
  readonly appendedAt: number;
  /**
   * The span that was active when it was emitted (e.g. the `tools/call` SERVER span whose handler emitted it), as W3C
   * Trace Context, when an OpenTelemetry SDK was recording: every delivery's span links to it (docs/observability.md,
   * "Events"). Never on the wire. A store that reads it back validates it (`parseTraceContext`).
   */
  readonly traceContext?: McpTraceContext;
}

/** A stored occurrence and its position in its type's log (`null` for a type without replay: it was not kept). */
export interface McpLoggedEvent {
  readonly position: string | null;
  readonly event: McpStoredEvent;
}

/** How much of a type's log is kept: events younger than `windowMs`, at most `maxEvents` of them. */
export interface McpEventRetention {
  readonly windowMs: number;
  readonly maxEvents: number;
}

/** Where a read starts: after `position`, or at it (`inclusive`: a webhook watermark that names an unacknowledged event). */
export interface McpEventReadFrom {
  readonly position: string;
  readonly inclusive: boolean;
}

/** What one read of a type's log asks for. */
export interface McpEventReadOptions {
  /** Most events returned. */
  readonly limit: number;
  /** Skip events appended before this time (ms since the epoch; `maxAgeMs`): skipping any makes the read truncated. */
  readonly notBefore?: number;
  /** The type's retention: what is older is gone, whether or not the store trimmed it yet. */
  readonly retention: McpEventRetention;
}

/** The answer of one read. */
export interface McpEventReadResult {
  /** In log order. */
  readonly events: readonly McpLoggedEvent[];
  /**
   * Events after `from` were skipped: trimmed by the retention, older than `notBefore`, or `from` belongs to a log that
   * is gone (a restarted in-memory store). The read resumed at the oldest event it could give.
   */
  readonly truncated: boolean;
  /** Where the next read starts: after the last event returned, or where this read resumed when it returned none. */
  readonly next: McpEventReadFrom;
  /** Whether more events follow the last one returned. */
  readonly more: boolean;
}

/**
 * The replay log of the events extension (docs/events.md, ADR 0024): one log per event type, bounded by the type's
 * retention, with positions that cursors seal. The default keeps it in this process (`InMemoryEventStore`); a shared
 * implementation (Redis Streams) lets a cursor taken on one replica resume on another and feeds push streams on every
 * replica.
 *
 * Positions are opaque strings that, within one type's log, compare in log order with plain string comparison (`<`):
 * pad numbers to a fixed width. Not to be confused with `McpEventBus`, which carries list and resource *changes* to
 * listen streams.
 */
export interface McpEventStore {
  /**
   * For a backend kept per named server (`McpRedis.serverOptions(options, { server })`): the server it belongs to,
   * `undefined` for one that is not a named server's. `McpModule` refuses to start a server given another server's
   * (docs/servers.md). Omit it for a backend of one server.
   */
  readonly server?: string;
  /** `true` when the log is shared by several replicas (then `requestState.keys` is required: cursors are sealed). */
  readonly sharedAcrossReplicas?: boolean;
  /**
   * Appends an occurrence to its type's log and trims what `retention` no longer keeps; resolves with its position.
   * Without `retention` (a type without replay) nothing is kept: subscribers still hear of it, with position `null`.
   */
  append(event: McpStoredEvent, retention: McpEventRetention | undefined): Promise<string | null>;
  /** The position of the last event appended to a type's log (a position before the first when there is none). */
  head(name: string): Promise<string>;
  /** Reads a type's log from a position (see `McpEventReadResult` for what is truncated). */
  read(name: string, from: McpEventReadFrom, options: McpEventReadOptions): Promise<McpEventReadResult>;
  /** Hears every occurrence appended from now on (on every replica, for a shared store); returns what stops it. */
  subscribe(listener: (logged: McpLoggedEvent) => void): () => void;
}

/** Injection token of the replay log (the `events.store` option, or the in-memory default). */
export const MCP_EVENT_STORE = Symbol('nest-mcp:event-store');
