import { type DynamicModule, Module } from '@nestjs/common';
import { BullMqTaskRunner } from './bullmq-task.runner.js';
import { BullMqWebhookDeliveryQueue } from './events/bullmq-webhook-delivery.queue.js';
import { RedisEventStore } from './events/redis-event.store.js';
import { RedisWebhookSubscriptionStore } from './events/redis-webhook-subscription.store.js';
import { McpRedis } from './mcp-redis.js';
import { McpRedisConnection } from './mcp-redis.connection.js';
import {
  MCP_REDIS_ASYNC_OPTIONS_TYPE,
  MCP_REDIS_OPTIONS_TYPE,
  McpRedisConfigurableModuleClass,
} from './mcp-redis-module.definition.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';
import { RedisEventBus } from './redis-event-bus.js';
import { RedisRegistryState } from './redis-registry.state.js';
import { RedisRequestStateStore } from './redis-request-state.store.js';
import { RedisTaskStore } from './redis-task.store.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/**
 * nest-mcp on Redis: provides `McpRedis` (event bus, task store, BullMQ task runner, single-use `requestState` store,
 * `@nestjs/throttler` storage, shared registry state, and for the events extension the replay log, webhook subscriptions
 * and deliveries)
 * for `McpModule.forRootAsync`. Global by default (`isGlobal: false` to scope it).
 *
 * @example
 * ```ts
 * McpRedisModule.forRoot({ url: 'redis://127.0.0.1:6379' })
 * McpRedisModule.forRootAsync({ inject: [ConfigService], useFactory: (config: ConfigService) => ({ url: config.get('REDIS_URL') }) })
 * ```
 */
@Module({})
export class McpRedisModule extends McpRedisConfigurableModuleClass {
  /** Connects with static options. */
  static forRoot(options: typeof MCP_REDIS_OPTIONS_TYPE): DynamicModule {
    return withComponents(super.forRoot(options));
  }

  /** Connects with options from a factory (e.g. `ConfigService`). */
  static forRootAsync(options: typeof MCP_REDIS_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withComponents(super.forRootAsync(options));
  }
}

function withComponents(definition: DynamicModule): DynamicModule {
  const components = [
    McpRedisResolvedOptions,
    McpRedisConnection,
    RedisEventBus,
    RedisTaskStore,
    BullMqTaskRunner,
    RedisRequestStateStore,
    RedisThrottlerStorage,
    {
      provide: RedisRegistryState,
      useFactory: (connection: McpRedisConnection, options: McpRedisResolvedOptions) =>
        new RedisRegistryState(connection, options.keyPrefix),
      inject: [McpRedisConnection, McpRedisResolvedOptions],
    },
    RedisEventStore,
    RedisWebhookSubscriptionStore,
    BullMqWebhookDeliveryQueue,
    McpRedis,
  ];
  return {
    ...definition,
    providers: [...(definition.providers ?? []), ...components],
    exports: [McpRedis, McpRedisConnection, McpRedisResolvedOptions],
  };
}
