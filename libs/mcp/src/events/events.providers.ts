import type { Provider } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { MCP_EVENT_STORE } from '../protocol/event-store.interface.js';
import { MCP_WEBHOOK_DELIVERY_QUEUE } from '../protocol/webhook-delivery-queue.interface.js';
import { MCP_WEBHOOK_SUBSCRIPTION_STORE } from '../protocol/webhook-subscription-store.interface.js';
import { EventCatalogService } from './event-catalog.service.js';
import { EventCursorCodec } from './event-cursor.codec.js';
import { McpEventErrors } from './event-errors.js';
import { McpEventMetadataAccessor } from './event-metadata.accessor.js';
import { EventOccurrenceBuilder } from './event-occurrence.builder.js';
import { EventPollService } from './event-poll.service.js';
import { EventStreamService } from './event-stream.service.js';
import { EventSubscriptionResolver } from './event-subscription.resolver.js';
import { McpEventTypes } from './event-types.registry.js';
import { McpEventsExplorer } from './events.explorer.js';
import { McpEventsExtension } from './events.extension.js';
import { InMemoryEventStore } from './in-memory-event.store.js';
import { McpEvents } from './mcp-events.service.js';
import { InMemoryWebhookDeliveryQueue } from './webhooks/in-memory-webhook-delivery.queue.js';
import { InMemoryWebhookSubscriptionStore } from './webhooks/in-memory-webhook-subscription.store.js';
import { WebhookDeliveryWorker } from './webhooks/webhook-delivery.worker.js';
import { WebhookFanout } from './webhooks/webhook-fanout.service.js';
import { WebhookSecrets } from './webhooks/webhook-secrets.js';
import { WebhookSubscriptionsService } from './webhooks/webhook-subscriptions.service.js';
import { WebhookVerifier } from './webhooks/webhook-verifier.service.js';

/**
 * The providers of the events extension, for `McpModule`: the catalog and its explorer, the emitter, the replay log
 * (`events.store`, or in memory), the services of each method, webhooks (their subscription store and delivery queue:
 * `events.webhooks.store` / `.queue`, or in memory; the verifier, the fan-out, the delivery worker), and
 * `McpEventsExtension` (which `McpModule` puts among the route extensions).
 */
export function eventProviders(): Provider[] {
  return [
    {
      provide: MCP_EVENT_STORE,
      useFactory: (options: McpResolvedOptions) => options.events.store ?? new InMemoryEventStore(),
      inject: [McpResolvedOptions],
    },
    {
      provide: MCP_WEBHOOK_SUBSCRIPTION_STORE,
      useFactory: (options: McpResolvedOptions) =>
        options.events.webhooks.store ?? new InMemoryWebhookSubscriptionStore(),
      inject: [McpResolvedOptions],
    },
    {
      provide: MCP_WEBHOOK_DELIVERY_QUEUE,
      useFactory: (options: McpResolvedOptions) => options.events.webhooks.queue ?? new InMemoryWebhookDeliveryQueue(),
      inject: [McpResolvedOptions],
    },
    McpEventTypes,
    McpEventMetadataAccessor,
    McpEventsExplorer,
    McpEventErrors,
    EventCursorCodec,
    EventOccurrenceBuilder,
    EventSubscriptionResolver,
    McpEvents,
    EventCatalogService,
    EventPollService,
    EventStreamService,
    WebhookSecrets,
    WebhookVerifier,
    WebhookFanout,
    WebhookDeliveryWorker,
    WebhookSubscriptionsService,
    McpEventsExtension,
  ];
}
