import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import type { McpCaller } from '../../protocol/mcp-caller.interface.js';
import {
  MCP_EVENT_STORE,
  type McpEventReadFrom,
  type McpEventStore,
  type McpLoggedEvent,
} from '../../protocol/event-store.interface.js';
import {
  MCP_WEBHOOK_DELIVERY_QUEUE,
  type McpWebhookDelivery,
  type McpWebhookDeliveryQueue,
} from '../../protocol/webhook-delivery-queue.interface.js';
import {
  MCP_WEBHOOK_SUBSCRIPTION_STORE,
  type McpWebhookSubscriptionRecord,
  type McpWebhookSubscriptionStore,
} from '../../protocol/webhook-subscription-store.interface.js';
import { canonicalJson } from '../canonical-json.util.js';
import { EventCursorCodec } from '../event-cursor.codec.js';
import { McpEventErrors } from '../event-errors.js';
import { EventOccurrenceBuilder, type McpEventOccurrence } from '../event-occurrence.builder.js';
import { EventSubscriptionResolver, hashOf } from '../event-subscription.resolver.js';
import type { McpEventTypeEntry } from '../event-type.js';
import { McpEventTypes } from '../event-types.registry.js';
import { READ_BATCH } from '../events.constants.js';
import { WEBHOOK_ID_PREFIX } from '../events-profile.constants.js';

/**
 * Turns occurrences into webhook deliveries (SEP-3415, "Webhook event delivery"): for every live subscription of the
 * type, the matcher runs with the subscription's arguments and principal, and each occurrence it keeps becomes one
 * queued POST — one event per POST, its body serialized once, `webhook-id` = the `eventId` (or per message, with
 * `events.webhookId: 'perMessage'`). Runs on the replica that emitted, so each occurrence fans out once.
 *
 * The body's `cursor` is a safe watermark: the position of the event itself when nothing earlier is still being
 * delivered to that subscription, else the earliest event still in flight (a client persisting it loses nothing if a
 * retry is still pending). A subscription with `maxPendingPerSubscription` deliveries in flight skips further events;
 * when delivery recovers it is sent a `gap` envelope with the cursor after the last skipped event.
 *
 * Removing a type sends every subscription of it a `terminated` envelope (`NotFound`, kind `event`) and deletes it.
 * Before each occurrence is queued for a subscription, its authorization is checked again (scopes it subscribed
 * with, the `visibility` hook, `authorize`); a refusal ends it the same way, with `Forbidden`.
 */
@Injectable()
export class WebhookFanout implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpWebhooks');
  /** Subscriptions that skipped events, with the position of the last one skipped (soft state of this replica). */
  private readonly gapped = new Map<string, string>();
  private typeChanges?: Subscription;

  constructor(
    @Inject(MCP_WEBHOOK_SUBSCRIPTION_STORE) private readonly store: McpWebhookSubscriptionStore,
    @Inject(MCP_WEBHOOK_DELIVERY_QUEUE) private readonly queue: McpWebhookDeliveryQueue,
    @Inject(MCP_EVENT_STORE) private readonly log: McpEventStore,
    private readonly types: McpEventTypes,
    private readonly resolver: EventSubscriptionResolver,
    private readonly occurrences: EventOccurrenceBuilder,
    private readonly cursors: EventCursorCodec,
    private readonly errors: McpEventErrors,
    private readonly options: McpResolvedOptions,
  ) {}

  onModuleInit(): void {
    // A removal another replica made (`replayed`): that replica ends the subscriptions, which the store shares.
    this.typeChanges = this.types.changes$.subscribe(({ name, removed, replayed }) => {
      if (removed && !replayed)
        this.terminateAll(name).catch((error: unknown) =>
          this.logger.error(`Could not terminate the subscriptions of ${name}`, (error as Error)?.stack),
        );
    });
  }

  onModuleDestroy(): void {
    this.typeChanges?.unsubscribe();
  }

  /** Queues the deliveries of one emitted occurrence to every live subscription of its type. */
  async fanOut(type: McpEventTypeEntry, logged: McpLoggedEvent): Promise<void> {
    if (!type.modes.has('webhook')) return;
    for (const subscription of await this.store.listByName(type.name)) await this.deliver(type, subscription, logged);
  }

  /**
   * Queues what the log holds after `from` for a subscription that was just created from a client's cursor
   * (SEP-3415: the replay point of a lapsed or lost subscription). Resolves with whether the read was truncated.
   */
  async replay(
    type: McpEventTypeEntry,
    subscription: McpWebhookSubscriptionRecord,
    from: McpEventReadFrom,
    notBefore: number | undefined,
  ): Promise<boolean> {
    const retention = type.retention!;
    let truncated = false;
    let next: McpEventReadFrom | undefined = from;
    let first = true;
    while (next) {
      const read = await this.log.read(type.name, next, {
        limit: READ_BATCH,
        notBefore: first ? notBefore : undefined,
        retention,
      });
      truncated ||= read.truncated;
      first = false;
      for (const logged of read.events) await this.deliver(type, subscription, logged);
      next = read.more ? read.next : undefined;
    }
    return truncated;
  }

  /**
   * The watermark a subscription's refresh answers (SEP-3415, "Cursor advancement without events"): the earliest
   * event still in flight, else the end of the log; `null` for a type without replay.
   */
  async watermark(type: McpEventTypeEntry, subscription: McpWebhookSubscriptionRecord): Promise<string | null> {
    if (!type.retention) return null;
    const { oldest } = await this.store.pending(subscription.key);
    const at: McpEventReadFrom =
      oldest !== undefined
        ? { position: oldest, inclusive: true }
        : { position: await this.log.head(type.name), inclusive: false };
    return this.cursors.mint(type.name, argumentsHashOf(subscription), at);
  }

  private async deliver(
    type: McpEventTypeEntry,
    subscription: McpWebhookSubscriptionRecord,
    logged: McpLoggedEvent,
  ): Promise<void> {
    const args = await this.resolver.revalidate(type, subscription.arguments);
    if (!args) return;
    // Authorization is checked again before anything is queued (SEP-3415, "Authorization"): a subscription its
    // principal may no longer have is ended with a signed terminated envelope (Forbidden).
    if (!(await this.resolver.stillAllowed(type, args.value, callerOfSubscription(subscription))))
      return this.revoke(subscription);
    const occurrence = await this.occurrences.build(type, logged, args.value, subscription.principal, 'webhook');
    if (occurrence) await this.enqueue(type, subscription, logged, occurrence);
  }

  private async enqueue(
    type: McpEventTypeEntry,
    subscription: McpWebhookSubscriptionRecord,
    logged: McpLoggedEvent,
    occurrence: McpEventOccurrence,
  ): Promise<void> {
    const { key } = subscription;
    // What the in-flight bookkeeping tracks: the log position (replay types), or the event id (live-only types).
    const tracked = logged.position ?? `~${occurrence.eventId}`;
    const pending = await this.store.pending(key);
    if (pending.count >= this.options.events.webhooks.maxPendingPerSubscription) {
      if (logged.position !== null) this.gapped.set(key, logged.position);
      else this.gapped.set(key, '');
      return;
    }
    const hash = argumentsHashOf(subscription);
    const skippedUpTo = this.gapped.get(key);
    if (skippedUpTo !== undefined) {
      this.gapped.delete(key);
      const cursor =
        skippedUpTo !== '' && type.retention
          ? this.cursors.mint(type.name, hash, { position: skippedUpTo, inclusive: false })
          : null;
      await this.queueEnvelope(subscription, 'gap', { type: 'gap', cursor });
    }
    let cursor: string | null = null;
    if (type.retention && logged.position !== null) {
      const inFlight = pending.oldest !== undefined && pending.oldest < logged.position;
      cursor = this.cursors.mint(
        type.name,
        hash,
        inFlight ? { position: pending.oldest!, inclusive: true } : { position: logged.position, inclusive: false },
      );
    }
    await this.store.trackPending(key, tracked);
    const body = JSON.stringify({ ...occurrence, cursor });
    const delivery: McpWebhookDelivery = {
      jobId: `${key}:${occurrence.eventId}`,
      kind: 'event',
      subscriptionKey: key,
      incarnation: subscription.incarnation,
      webhookId: this.webhookIdOf(subscription, occurrence.eventId),
      body,
      position: tracked,
      attempt: 1,
      eventName: occurrence.name,
      ...(logged.event.traceContext && { traceContext: logged.event.traceContext }),
    };
    await this.queue.enqueue(delivery, 0);
  }

  /** A `gap` or `terminated` envelope for a subscription (`webhook-id` `msg_<type>_<random>`, SEP-3415). */
  private async queueEnvelope(
    subscription: McpWebhookSubscriptionRecord,
    kind: 'gap' | 'terminated',
    envelope: object,
  ): Promise<void> {
    const webhookId = `${WEBHOOK_ID_PREFIX.envelope}${kind}_${randomBytes(12).toString('base64url')}`;
    await this.queue.enqueue(
      {
        jobId: `${subscription.key}:${webhookId}`,
        kind,
        subscriptionKey: subscription.key,
        incarnation: subscription.incarnation,
        webhookId,
        body: JSON.stringify(envelope),
        attempt: 1,
        // A terminated subscription is deleted right away: the envelope carries where to go and how to sign.
        ...(kind === 'terminated' && {
          target: { url: subscription.url, subscriptionId: subscription.id, sealedSecret: subscription.sealedSecret },
        }),
      },
      0,
    );
  }

  /** Ends a subscription whose principal may no longer have it: `terminated` with `Forbidden`, then deleted. */
  private async revoke(subscription: McpWebhookSubscriptionRecord): Promise<void> {
    // Deleted first: another occurrence fanned out meanwhile finds nothing to deliver to, and nothing to revoke twice.
    if (!(await this.store.delete(subscription.key))) return;
    const error = this.errors.forbidden('revoked');
    this.logger.log(`A webhook subscription to ${subscription.name} was ended: its principal is no longer authorized`);
    await this.queueEnvelope(subscription, 'terminated', {
      type: 'terminated',
      error: { code: error.code, message: error.message, data: error.data },
    });
  }

  private async terminateAll(name: string): Promise<void> {
    const error = this.errors.removedType(name);
    for (const subscription of await this.store.listByName(name)) {
      await this.queueEnvelope(subscription, 'terminated', { type: 'terminated', error });
      await this.store.delete(subscription.key);
    }
  }

  private webhookIdOf(subscription: McpWebhookSubscriptionRecord, eventId: string): string {
    if (this.options.events.webhookId === 'eventId') return eventId;
    const digest = createHash('sha256').update(`${subscription.id}\n${eventId}`).digest('hex').slice(0, 32);
    return `${WEBHOOK_ID_PREFIX.perMessage}${digest}`;
  }
}

/** Who a webhook subscription is authorized as at delivery time: its principal, with the scopes it subscribed with. */
function callerOfSubscription(subscription: McpWebhookSubscriptionRecord): McpCaller {
  return {
    principal: subscription.principal,
    scopes: subscription.scopes ?? [],
    trusted: subscription.trusted === true,
  };
}

/** The hash cursors of a webhook subscription are bound to: that of its arguments, as for poll and push. */
export function argumentsHashOf(subscription: Pick<McpWebhookSubscriptionRecord, 'arguments'>): string {
  return hashOf(canonicalJson(subscription.arguments));
}
