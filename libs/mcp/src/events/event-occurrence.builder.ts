import { Injectable, Logger } from '@nestjs/common';
import type { McpLoggedEvent } from '../protocol/event-store.interface.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import { formatIssues } from '../schema/index.js';
import type { McpEventTypeEntry } from './event-type.js';
import { MAX_EVENT_BYTES, type McpEventDeliveryMode } from './events.constants.js';

/** An event occurrence on the wire (SEP-3415, "Event Occurrences"), before its cursor. */
export interface McpEventOccurrence {
  readonly eventId: string;
  readonly name: string;
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
}

/** Matcher failures repeat per event × subscription: one log line per type per interval at most. */
const LOG_INTERVAL_MS = 10_000;

/**
 * Runs an event type's matcher for one subscription (the same on every path: poll, push, webhook, replayed or live):
 * what it returns becomes the occurrence's `data` if it is a JSON object that passes the `payload` schema and keeps
 * the occurrence within 256 KiB; `true` delivers the emitted data unchanged. Anything else skips the occurrence for
 * that subscription; a throw, a wrong shape or a failed schema is logged (never the data itself).
 */
@Injectable()
export class EventOccurrenceBuilder {
  private readonly logger = new Logger('McpEvents');
  private readonly lastLogged = new Map<string, number>();

  async build(
    type: McpEventTypeEntry,
    logged: McpLoggedEvent,
    args: unknown,
    principal: string | undefined,
    delivery: McpEventDeliveryMode,
  ): Promise<McpEventOccurrence | undefined> {
    const { event } = logged;
    let verdict: unknown;
    try {
      verdict = await type.match(event.data, args, {
        name: event.name,
        eventId: event.eventId,
        timestamp: event.timestamp,
        principal,
        delivery,
      });
    } catch (error) {
      this.report(type, `the matcher threw (${(error as Error)?.message ?? String(error)})`);
      return undefined;
    }
    if (verdict === undefined || verdict === null || verdict === false) return undefined;
    const data = verdict === true ? event.data : verdict;
    if (!isJsonObject(data)) {
      this.report(type, 'the matcher returned neither an object nor true/false/undefined');
      return undefined;
    }
    if (type.payload) {
      const outcome = await type.payload.validate(structuredClone(data));
      if (!outcome.valid) {
        this.report(type, `the payload does not match its schema: ${formatIssues(outcome.issues, outcome.omitted)}`);
        return undefined;
      }
    }
    const occurrence: McpEventOccurrence = {
      eventId: event.eventId,
      name: event.name,
      timestamp: event.timestamp,
      data,
    };
    if (Buffer.byteLength(JSON.stringify(occurrence)) > MAX_EVENT_BYTES) {
      this.report(type, `the payload exceeds ${MAX_EVENT_BYTES} bytes`);
      return undefined;
    }
    return occurrence;
  }

  private report(type: McpEventTypeEntry, problem: string): void {
    const now = Date.now();
    if (now - (this.lastLogged.get(type.name) ?? 0) < LOG_INTERVAL_MS) return;
    this.lastLogged.set(type.name, now);
    this.logger.error(`Event type ${type.name}: an occurrence was not delivered, ${problem}`);
  }
}
