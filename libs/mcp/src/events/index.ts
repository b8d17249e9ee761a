/*
 * The events extension (SEP-3415, `io.modelcontextprotocol/events`): what other layers and the public API may use.
 */
export { EVENTS_EXTENSION, EVENT_DELIVERY_MODES, type McpEventDeliveryMode } from './events.constants.js';
export {
  EVENTS_PROFILES,
  EVENTS_EXPERIMENTAL_EXTENSION,
  type McpEventsProfile,
  type McpEventsErrorName,
} from './events-profile.constants.js';
export {
  McpEvent,
  type McpEventOptions,
  type McpEventMatcher,
  type McpEventMatchContext,
  type McpEventAuthorizer,
  type McpEventReplayOptions,
} from './mcp-event.decorator.js';
export { McpEvents, type McpEmitOptions, type McpEmittedEvent } from './mcp-events.service.js';
export { McpEventTypes, type McpEventTypeAccess } from './event-types.registry.js';
export type { McpEventTypeDescriptor } from './event-type.js';
export { McpEventDefinitionError } from './event-definition.error.js';
export { InMemoryEventStore } from './in-memory-event.store.js';
export { InMemoryWebhookSubscriptionStore } from './webhooks/in-memory-webhook-subscription.store.js';
export { InMemoryWebhookDeliveryQueue } from './webhooks/in-memory-webhook-delivery.queue.js';
export { McpEventsExtension } from './events.extension.js';
export { eventProviders } from './events.providers.js';
