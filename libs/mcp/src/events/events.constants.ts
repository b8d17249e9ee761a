import type { McpEventRetention } from '../protocol/event-store.interface.js';

export { EVENTS_EXTENSION } from '../protocol/events.constants.js';

/** Metadata key of `@McpEvent`. */
export const MCP_EVENT_METADATA = 'nest-mcp:event';

/** The delivery modes of an event type (SEP-3415: `poll` = replay polling, `push` = `events/stream`, `webhook`). */
export const EVENT_DELIVERY_MODES = ['poll', 'push', 'webhook'] as const;

/** One delivery mode. */
export type McpEventDeliveryMode = (typeof EVENT_DELIVERY_MODES)[number];

/**
 * An event type name: 1-128 of `A-Z a-z 0-9 _ . : / -` (SEP-3415 leaves names open; this is the bound deployed servers
 * use, and it keeps names safe in headers and logs).
 */
export const EVENT_NAME = /^[A-Za-z0-9_.:/-]{1,128}$/;

/** Names SEP-3415 keeps for the protocol's own event types (open question 6): never ours to declare. */
export const RESERVED_EVENT_PREFIX = 'mcp.';

/**
 * An `eventId`: it doubles as the Standard Webhooks `webhook-id`, which must not contain `.` (Standard Webhooks 1.0.0,
 * "Webhook metadata"), so ids are 1-256 of `A-Z a-z 0-9 _ - :`.
 */
export const EVENT_ID = /^[A-Za-z0-9_:-]{1,256}$/;

/** What a type keeps for replay when its `replay` option says nothing: 10 minutes, at most 10,000 events. */
export const DEFAULT_REPLAY: McpEventRetention = Object.freeze({ windowMs: 10 * 60_000, maxEvents: 10_000 });

/**
 * The largest occurrence, in bytes of JSON: the webhook body bound of SEP-3415 ("Delivery profile", 256 KiB, also the
 * OpenAI limit and the AI SDK receiver's cap). A larger emit is refused at the source.
 */
export const MAX_EVENT_BYTES = 256 * 1024;

/** Events read from the log per batch (poll, stream replay, webhook replay). */
export const READ_BATCH = 256;

/** Events of the log one `events/poll` scans at most (matching or not) before it answers with `hasMore`. */
export const MAX_POLL_SCAN = 10_000;

/** Labels of the tokens sealed with the `requestState` keys: a token of one never opens as another. */
export const SEAL_LABELS = Object.freeze({
  cursor: 'nest-mcp/events/cursor/v1',
  secret: 'nest-mcp/events/webhook-secret/v1',
  subscriptionId: 'nest-mcp/events/subscription-id/v1',
});
