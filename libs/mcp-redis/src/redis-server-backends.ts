import { BullMqTaskRunner } from './bullmq-task.runner.js';
import { BullMqWebhookDeliveryQueue } from './events/bullmq-webhook-delivery.queue.js';
import { RedisEventStore } from './events/redis-event.store.js';
import { RedisWebhookSubscriptionStore } from './events/redis-webhook-subscription.store.js';
import type { McpRedisConnection } from './mcp-redis.connection.js';
import type { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';
import { RedisEventBus } from './redis-event-bus.js';
import type { RedisRegistryState } from './redis-registry.state.js';
import { RedisTaskStore } from './redis-task.store.js';

/**
 * The Redis backends of one named server (`McpRedis.forServer`), each under `<keyPrefix>:server:<name>` (the registry
 * state under `<keyPrefix>:registry:server:<name>`): its change events, tasks and their BullMQ queue, event log,
 * webhook subscriptions and deliveries are its own, so each server of an application runs its own task rounds and
 * webhook deliveries with its own handlers, on every replica. The single-use `requestState` store and the throttler
 * storage stay the module's: they hold no server's state.
 */
export interface McpRedisServerBackends {
  /** The server's name. */
  readonly server: string;
  /** Change events of this server's `McpPublisher`, for the listen streams of this server on every replica. */
  readonly eventBus: RedisEventBus;
  /** This server's tasks. */
  readonly taskStore: RedisTaskStore;
  /** This server's task rounds, on a BullMQ queue of its own. */
  readonly taskRunner: BullMqTaskRunner;
  /** The runtime state of this server's lists. */
  readonly registryState: RedisRegistryState;
  /** This server's replay log of events. */
  readonly eventStore: RedisEventStore;
  /** This server's webhook subscriptions and endpoint consents. */
  readonly webhookSubscriptionStore: RedisWebhookSubscriptionStore;
  /** This server's webhook deliveries, on a BullMQ queue of its own. */
  readonly webhookDeliveryQueue: BullMqWebhookDeliveryQueue;
}

/**
 * Makes the backends of the server `name`: the same classes Nest makes for the module, given options scoped to the
 * server (`McpRedisResolvedOptions.forServer`). Their lifecycle hooks are `McpRedis`'s to call (Nest does not know
 * them).
 * @internal
 */
export function createServerBackends(
  name: string,
  connection: McpRedisConnection,
  options: McpRedisResolvedOptions,
  registryState: RedisRegistryState,
): McpRedisServerBackends {
  const scoped = options.forServer(name);
  return Object.freeze({
    server: name,
    eventBus: new RedisEventBus(connection, scoped),
    taskStore: new RedisTaskStore(connection, scoped),
    taskRunner: new BullMqTaskRunner(connection, scoped),
    registryState: registryState.forServer(name),
    eventStore: new RedisEventStore(connection, scoped),
    webhookSubscriptionStore: new RedisWebhookSubscriptionStore(connection, scoped),
    webhookDeliveryQueue: new BullMqWebhookDeliveryQueue(connection, scoped),
  });
}
