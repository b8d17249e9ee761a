/** An event type as `events/list` describes it. */
export interface McpEventTypeEntry {
  name: string;
  description?: string;
  delivery: Array<'poll' | 'push' | 'webhook'>;
  inputSchema: Record<string, unknown>;
  payloadSchema: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** One event occurrence as delivered. */
export interface McpEventOccurrenceEntry {
  eventId: string;
  name: string;
  timestamp: string;
  data: Record<string, any>;
  cursor?: string | null;
}

/** The result of `events/poll`. */
export interface McpEventPollResult {
  events: McpEventOccurrenceEntry[];
  cursor: string | null;
  truncated: boolean;
  hasMore: boolean;
  nextPollMs: number;
}

/** Where a subscription starts: a cursor (`null` or absent: from now) and a replay floor. */
export interface McpEventCursorOptions {
  cursor?: string | null;
  maxAgeMs?: number;
}

/** Options of `pollEvents`. */
export interface McpEventPollOptions extends McpEventCursorOptions {
  maxEvents?: number;
}

/** Options of `subscribeEvents`: the callback, its secret, and the suggested lifetime. */
export interface McpWebhookSubscribeOptions extends McpEventCursorOptions {
  url: string;
  secret: string;
  /** Suggested lifetime in ms; `null` asks for no expiry. */
  ttlMs?: number | null;
}

/** The result of `events/subscribe`. */
export interface McpWebhookSubscription {
  id: string;
  refreshBefore: string | null;
  cursor: string | null;
  truncated: boolean;
  deliveryStatus?: { active: boolean; lastDeliveryAt?: string; lastError: string | null; failedSince?: string };
}
