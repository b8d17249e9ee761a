import { SetMetadata } from '@nestjs/common';
import type { McpMeta } from '../protocol/mcp-wire.interface.js';
import type { McpCaller } from '../protocol/mcp-caller.interface.js';
import type { SchemaInput } from '../schema/index.js';
import { MCP_EVENT_METADATA, type McpEventDeliveryMode } from './events.constants.js';

/** What a matcher is told about the occurrence and the subscription it judges it for. */
export interface McpEventMatchContext {
  /** The event type. */
  readonly name: string;
  readonly eventId: string;
  readonly timestamp: string;
  /** The subscriber (webhook: always; poll and push: when the caller has one). */
  readonly principal?: string;
  /** How the occurrence would reach the subscriber. */
  readonly delivery: McpEventDeliveryMode;
}

/**
 * Decides, for one subscription's arguments, whether an occurrence reaches it and with what payload: `data` is what
 * `McpEvents.emit` got, `args` the subscription's validated arguments. Returns the payload (a JSON object, checked
 * against the type's `payload` schema), `true` to deliver `data` as it is, or `undefined` / `null` / `false` to skip.
 * May be async; a throw skips the occurrence for that subscription (and is logged).
 */
export type McpEventMatcher<D = any, A = any> = (data: D, args: A, context: McpEventMatchContext) => unknown;

/**
 * Decides whether a caller may subscribe with these arguments (poll, push and webhook, at the start of each; SEP-3415
 * "Authorization"), after `@McpScopes` and the `visibility` hook let it see the type. Only `true` admits; anything else
 * is `Forbidden`.
 */
export type McpEventAuthorizer<A = any> = (args: A, caller: McpCaller) => boolean | Promise<boolean>;

/** How much of an event type's history is kept for replay (cursors, `events/poll`). */
export interface McpEventReplayOptions {
  /** How long an occurrence stays replayable, in milliseconds. Default 10 minutes. */
  windowMs?: number;
  /** Most occurrences kept. Default 10,000. */
  maxEvents?: number;
}

/** Options of `@McpEvent` (and of `McpEventTypes.register`). */
export interface McpEventOptions {
  /** The event type name (1-128 of `A-Z a-z 0-9 _ . : / -`, not starting with `mcp.`); defaults to the method name. */
  name?: string;
  /** What the event means, for people and models (`description`). */
  description?: string;
  /**
   * The subscription arguments (filters): a class-validator DTO, a Standard Schema or a JSON Schema with
   * `type: "object"` (`inputSchema`). Arguments are validated, never transformed: the subscription is keyed by what the
   * client sent. Omitted: `{ "type": "object" }`.
   */
  input?: SchemaInput;
  /** The payload each subscription receives (`payloadSchema`), checked on every delivery. Omitted: `{ "type": "object" }`. */
  payload?: SchemaInput;
  /** The delivery modes offered (`delivery`). Default all three; `poll` needs replay. */
  delivery?: McpEventDeliveryMode[];
  /**
   * Replay (cursors that resume, `events/poll`): how much history is kept, or `false` for a live-only type (push and
   * webhook, every cursor `null`). Default `{ windowMs: 10 min, maxEvents: 10,000 }`.
   */
  replay?: false | McpEventReplayOptions;
  /**
   * Who may subscribe with which arguments (`McpEventAuthorizer`), or the name of a method of the same provider that
   * decides it. Default: whoever may see the type.
   */
  authorize?: McpEventAuthorizer | string;
  /** Extra `_meta` on the descriptor. */
  _meta?: McpMeta;
}

/**
 * Declares an event type of the events extension (SEP-3415) on a provider method, which is its matcher
 * (`McpEventMatcher`): for each subscription it gets what `McpEvents.emit` sent and the subscription's arguments, and
 * returns the payload to deliver, or nothing to skip. It is a plain call (no guards or interceptors); use
 * `@McpScopes`, the `visibility` hook or `authorize` to restrict who may subscribe.
 *
 * @example
 * ```ts
 * @McpEvent({ name: 'incident.opened', input: IncidentFilter, payload: IncidentPayload })
 * incidentOpened(incident: Incident, filter: IncidentFilter): IncidentPayload | undefined {
 *   if (filter.severity && incident.severity !== filter.severity) return undefined;
 *   return { incidentId: incident.id, severity: incident.severity, title: incident.title };
 * }
 * ```
 */
export const McpEvent = (options: McpEventOptions = {}): MethodDecorator => SetMetadata(MCP_EVENT_METADATA, options);
