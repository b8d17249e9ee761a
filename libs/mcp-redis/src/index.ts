export { McpRedisModule } from './mcp-redis.module.js';
export { McpRedis } from './mcp-redis.js';
export type { McpRedisServerBackends } from './redis-server-backends.js';
export type {
  McpRedisModuleOptions,
  McpRedisTasksOptions,
  McpRedisRequestStateOptions,
  McpRedisEventsOptions,
  McpRedisServerChoice,
} from './mcp-redis-options.interface.js';
export { RedisEventBus } from './redis-event-bus.js';
export { RedisTaskStore } from './redis-task.store.js';
export { BullMqTaskRunner } from './bullmq-task.runner.js';
export { RedisRequestStateStore } from './redis-request-state.store.js';
export { RedisRegistryState } from './redis-registry.state.js';
export { RedisThrottlerStorage, type RedisThrottlerRecord } from './redis-throttler.storage.js';
export { RedisEventStore } from './events/redis-event.store.js';
export { RedisWebhookSubscriptionStore } from './events/redis-webhook-subscription.store.js';
export { BullMqWebhookDeliveryQueue } from './events/bullmq-webhook-delivery.queue.js';
