import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { MCP_EVENT_STORE, type McpEventStore, type McpStoredEvent } from '../protocol/event-store.interface.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import type { EventTelemetry } from '../telemetry/event-telemetry.interface.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { McpEventTypes } from './event-types.registry.js';
import { EVENT_ID, MAX_EVENT_BYTES } from './events.constants.js';
import { WebhookFanout } from './webhooks/webhook-fanout.service.js';

/** Options of one emitted occurrence. */
export interface McpEmitOptions {
  /**
   * The occurrence's stable id (SEP-3415: the upstream's own id, e.g. Stripe's `evt_…`, so the same event seen twice
   * carries one id): 1-256 of `A-Z a-z 0-9 _ - :`. Default: a random UUID.
   */
  eventId?: string;
  /** When the event happened. Default: now. */
  timestamp?: Date | string;
}

/** What `emit` recorded. */
export interface McpEmittedEvent {
  readonly eventId: string;
  /** The occurrence's position in its type's log (`null` for a type without replay). */
  readonly position: string | null;
}

/**
 * Emits occurrences of the server's event types (the events extension; docs/events.md). Inject it anywhere. Each
 * occurrence is appended to its type's replay log (`events.store`) and reaches every subscription of the type — polls
 * that come, open push streams, webhook subscriptions — through the type's matcher, which decides per subscription
 * whether and what it delivers.
 *
 * @example
 * ```ts
 * constructor(private readonly events: McpEvents) {}
 * async open(incident: Incident) {
 *   await this.store.save(incident);
 *   await this.events.emit('incident.opened', incident, { eventId: incident.id });
 * }
 * ```
 */
@Injectable()
export class McpEvents {
  constructor(
    private readonly types: McpEventTypes,
    @Inject(MCP_EVENT_STORE) private readonly store: McpEventStore,
    private readonly webhooks: WebhookFanout,
    @Optional() @Inject(McpTelemetry) private readonly telemetry?: Pick<EventTelemetry, 'captureContext'>,
  ) {}

  /**
   * Emits one occurrence of `name`. Throws (a programming error, nothing is emitted) for an unknown type, data that is
   * not a JSON object or is larger than 256 KiB, or an invalid `eventId` / `timestamp`.
   */
  async emit(name: string, data: object, options: McpEmitOptions = {}): Promise<McpEmittedEvent> {
    // A type registered on another replica a moment ago: this one catches up before it refuses the name.
    const type = this.types.get(name) ?? (await this.types.catchUp(), this.types.get(name));
    if (!type)
      throw new TypeError(`McpEvents.emit: no event type named ${JSON.stringify(name)} (declare it with @McpEvent)`);
    if (!isJsonObject(data)) throw new TypeError('McpEvents.emit: data must be a JSON object');
    const eventId = options.eventId ?? randomUUID();
    if (typeof eventId !== 'string' || !EVENT_ID.test(eventId)) {
      throw new TypeError(
        'McpEvents.emit: eventId must be 1-256 characters of A-Z a-z 0-9 _ - : (it is also the webhook-id)',
      );
    }
    // The span emitting it (a tool call's, a job's), when an SDK records: each delivery's span links to it.
    const traceContext = this.telemetry?.captureContext();
    const event: McpStoredEvent = {
      eventId,
      name,
      timestamp: timestampOf(options.timestamp),
      data: { ...data },
      appendedAt: Date.now(),
      ...(traceContext && { traceContext }),
    };
    const size = Buffer.byteLength(JSON.stringify(event));
    if (size > MAX_EVENT_BYTES)
      throw new RangeError(`McpEvents.emit: the occurrence is ${size} bytes of JSON, more than ${MAX_EVENT_BYTES}`);
    const position = await this.store.append(event, type.retention);
    // Push streams hear of it from the log (on every replica, for a shared one); webhook deliveries are queued here,
    // once, on the replica that emitted.
    await this.webhooks.fanOut(type, { position, event });
    return { eventId, position };
  }
}

/** ISO 8601 with an offset (the AI SDK's validator requires one): `toISOString`, always `Z`. */
function timestampOf(timestamp: Date | string | undefined): string {
  const date = timestamp === undefined ? new Date() : new Date(timestamp);
  if (Number.isNaN(date.getTime())) throw new TypeError('McpEvents.emit: timestamp must be a Date or a date string');
  return date.toISOString();
}
