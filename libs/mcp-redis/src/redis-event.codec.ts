import { isResourceUri, MAX_URI_LENGTH, type McpChangeEvent } from 'nest-mcp/backend';

/** Longest resource URI an event may carry: the bound nest-mcp puts on `resources/read` and subscriptions. */
export const MAX_EVENT_URI_LENGTH = MAX_URI_LENGTH;
/**
 * Longest message the bus sends or accepts, in characters (1 MiB): room for an audience of thousands of principals,
 * and a bound on what one malformed or hostile message can make a replica parse.
 */
export const MAX_EVENT_MESSAGE_LENGTH = 1_048_576;

/** One change event on the Redis channel, with the replica that published it (so that it can skip its own). */
export interface RedisEventEnvelope {
  readonly origin: string;
  readonly event: McpChangeEvent;
}

const NOTIFIED_TYPES = new Set([
  'toolsListChanged',
  'promptsListChanged',
  'resourcesListChanged',
  'eventsListChanged',
  'resourceUpdated',
]);

/**
 * The message for `event`, or undefined when it cannot travel (not JSON-serializable, or longer than
 * {@link MAX_EVENT_MESSAGE_LENGTH}).
 * @internal
 */
export function encodeEvent(origin: string, event: McpChangeEvent): string | undefined {
  let message: string;
  try {
    message = JSON.stringify({ origin, event });
  } catch {
    return undefined;
  }
  return message.length <= MAX_EVENT_MESSAGE_LENGTH ? message : undefined;
}

/**
 * Reads a message from the channel, or undefined when it is not one: anything may be published on a Redis channel,
 * so only plain JSON of the event's shape passes (a known `type`; for `resourceUpdated` a `uri` that nest-mcp's
 * `isResourceUri` accepts, as `McpPublisher` requires: 1 to {@link MAX_EVENT_URI_LENGTH} printable ASCII characters,
 * no control character that could reach a client's terminal or log; an `audience` only as `{ principals: string[] }`,
 * and none on `resync`). The event returned is rebuilt from those fields alone.
 * @internal
 */
export function decodeEvent(message: unknown): RedisEventEnvelope | undefined {
  if (typeof message !== 'string' || message.length > MAX_EVENT_MESSAGE_LENGTH) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || typeof parsed.origin !== 'string' || !isRecord(parsed.event)) return undefined;
  const event = parsed.event;
  if (event.type === 'resync')
    return event.audience === undefined ? { origin: parsed.origin, event: { type: 'resync' } } : undefined;
  if (typeof event.type !== 'string' || !NOTIFIED_TYPES.has(event.type)) return undefined;
  let audience: { principals: string[] } | undefined;
  if (event.audience !== undefined) {
    const principals = isRecord(event.audience) ? event.audience.principals : undefined;
    if (!Array.isArray(principals) || !principals.every((principal) => typeof principal === 'string')) return undefined;
    audience = { principals: principals as string[] };
  }
  let decoded: Exclude<McpChangeEvent, { type: 'resync' }>;
  if (event.type === 'resourceUpdated') {
    const uri = event.uri;
    if (!isResourceUri(uri)) return undefined;
    decoded = { type: 'resourceUpdated', uri };
  } else {
    decoded = {
      type: event.type as 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged' | 'eventsListChanged',
    };
  }
  return { origin: parsed.origin, event: audience ? { ...decoded, audience } : decoded };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
