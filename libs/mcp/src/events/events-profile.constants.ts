/**
 * Every number and name of the events extension on which the deployed profiles disagree, in one place (docs/events.md,
 * "Profiles"; SEP-3415 "Error Handling" against the design sketch that ChatGPT, mcp-handler and the draft conformance
 * suite follow). Check them again when the final text of `modelcontextprotocol/ext-events` can be read.
 */

/** The typed errors of the extension, by name (the JSON-RPC `message` starts with it). */
export type McpEventsErrorName =
  | 'NotFound'
  | 'Forbidden'
  | 'ResourceExhausted'
  | 'Unsupported'
  | 'CallbackEndpointError';

/** One wire profile. */
export interface McpEventsProfile {
  /** The JSON-RPC code of each typed error. */
  readonly codes: Readonly<Record<McpEventsErrorName, number>>;
  /** What `events/unsubscribe` answers when no subscription has its key: a `NotFound` error, or an empty result. */
  readonly unsubscribeUnknown: 'NotFound' | 'empty';
}

/** The profiles, by the value of the `events.profile` option. */
export const EVENTS_PROFILES: Readonly<Record<'sep-3415' | 'openai', McpEventsProfile>> = Object.freeze({
  // SEP-3415: codes in the spec-reserved range (provisional: they assume -32020…-32022 were the only ones taken).
  'sep-3415': {
    codes: {
      NotFound: -32023,
      Forbidden: -32024,
      ResourceExhausted: -32025,
      Unsupported: -32026,
      CallbackEndpointError: -32027,
    },
    unsubscribeUnknown: 'NotFound',
  },
  // The design sketch, which ChatGPT (webhook only) follows: its codes and an idempotent unsubscribe.
  openai: {
    codes: {
      NotFound: -32011,
      Forbidden: -32012,
      ResourceExhausted: -32013,
      Unsupported: -32014,
      CallbackEndpointError: -32015,
    },
    unsubscribeUnknown: 'empty',
  },
});

/**
 * The top-level capability key ChatGPT, the AI SDK and mcp-handler read (`capabilities.events: {}`), advertised beside
 * SEP-3415's `extensions` entry unless `events.topLevelCapability` is false.
 */
export const TOP_LEVEL_CAPABILITY = 'events';

/**
 * The one id under which wire shapes of our own (proposals with no official text yet) would be advertised, in
 * `capabilities.extensions`, next to the official id. None is on in this release: nothing is advertised under it.
 */
export const EVENTS_EXPERIMENTAL_EXTENSION = 'io.github.nest-mcp/events-experimental';

/** The header that carries the subscription id on every webhook POST (SEP-3415, "Reservations"). */
export const SUBSCRIPTION_ID_HEADER = 'X-MCP-Subscription-Id';

/**
 * `webhook-id` prefixes. An event's id is its `eventId` (every deployed receiver checks that), or with
 * `webhookId: 'perMessage'` `msg_evt_<hash>`; control envelopes are `msg_<type>_<random>` (SEP-3415,
 * "Non-event webhook bodies").
 */
export const WEBHOOK_ID_PREFIX = Object.freeze({ perMessage: 'msg_evt_', envelope: 'msg_' });

/** The `lastError` / `data.reason` categories a client may see (SEP-3415, "Webhook delivery status"): never content. */
export type McpWebhookFailure =
  | 'connection_refused'
  | 'timeout'
  | 'tls_error'
  | 'http_4xx'
  | 'http_5xx'
  | 'challenge_failed';
