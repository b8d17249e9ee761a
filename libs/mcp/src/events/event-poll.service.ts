import { Inject, Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { MCP_EVENT_STORE, type McpEventReadFrom, type McpEventStore } from '../protocol/event-store.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { EventCursorCodec } from './event-cursor.codec.js';
import { EventOccurrenceBuilder, type McpEventOccurrence } from './event-occurrence.builder.js';
import { notBeforeOf, optionalNonNegativeInteger, optionalPositiveInteger } from './event-params.util.js';
import { EventSubscriptionResolver } from './event-subscription.resolver.js';
import { MAX_POLL_SCAN, READ_BATCH } from './events.constants.js';

/**
 * `events/poll` (SEP-3415, "Poll-Based Delivery"): one subscription per request, no state kept between polls — the
 * client's cursor says where it stands. `cursor: null` (or absent) answers no events and the current position. Else
 * the type's log is read from the cursor through the type's matcher: at most `maxEvents` occurrences (capped by
 * `events.maxPollEvents`), `hasMore` when the log holds more, `truncated` when events after the cursor are gone (the
 * replay window, `maxAgeMs`, a restarted in-memory log). The result's cursor always moves on, even when nothing matched.
 */
@Injectable()
export class EventPollService {
  constructor(
    private readonly resolver: EventSubscriptionResolver,
    private readonly cursors: EventCursorCodec,
    private readonly occurrences: EventOccurrenceBuilder,
    private readonly options: McpResolvedOptions,
    @Inject(MCP_EVENT_STORE) private readonly store: McpEventStore,
  ) {}

  async poll(scope: McpRequestScope): Promise<JsonObject> {
    const subscription = await this.resolver.resolve(scope, 'poll');
    const { type, hash } = subscription;
    const from = this.cursors.open(scope.params.cursor, type.name, hash);
    const maxAgeMs = optionalNonNegativeInteger(scope.params, 'maxAgeMs');
    const limit = Math.min(
      optionalPositiveInteger(scope.params, 'maxEvents') ?? this.options.events.maxPollEvents,
      this.options.events.maxPollEvents,
    );
    const nextPollMs = this.options.events.pollIntervalMs;
    const answer = (
      events: McpEventOccurrence[],
      at: McpEventReadFrom,
      truncated: boolean,
      hasMore: boolean,
    ): JsonObject => ({
      events,
      cursor: this.cursors.mint(type.name, hash, at),
      truncated,
      hasMore,
      nextPollMs,
    });
    // Types that offer poll always have replay (checked at registration).
    const retention = type.retention!;
    if (!from) return answer([], { position: await this.store.head(type.name), inclusive: false }, false, false);
    const events: McpEventOccurrence[] = [];
    let at = from;
    let truncated = false;
    let scanned = 0;
    let first = true;
    for (;;) {
      const read = await this.store.read(type.name, at, {
        limit: READ_BATCH,
        notBefore: first ? notBeforeOf(maxAgeMs) : undefined,
        retention,
      });
      truncated ||= read.truncated;
      first = false;
      at = read.next;
      for (const [index, logged] of read.events.entries()) {
        scanned++;
        const occurrence = await this.occurrences.build(type, logged, subscription.value, scope.principal, 'poll');
        if (occurrence) events.push(occurrence);
        if (events.length >= limit || scanned >= MAX_POLL_SCAN) {
          // A partial batch: the cursor stops right after the last event looked at.
          const rest = index < read.events.length - 1 || read.more;
          return answer(events, { position: logged.position!, inclusive: false }, truncated, rest);
        }
      }
      if (!read.more) return answer(events, at, truncated, false);
    }
  }
}
