import {
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { McpModuleOptions } from 'nest-mcp';
import type { McpRedisServerChoice } from './mcp-redis-options.interface.js';
import { BullMqTaskRunner } from './bullmq-task.runner.js';
import { BullMqWebhookDeliveryQueue } from './events/bullmq-webhook-delivery.queue.js';
import { RedisEventStore } from './events/redis-event.store.js';
import { RedisWebhookSubscriptionStore } from './events/redis-webhook-subscription.store.js';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';
import { RedisEventBus } from './redis-event-bus.js';
import { RedisRegistryState } from './redis-registry.state.js';
import { RedisRequestStateStore } from './redis-request-state.store.js';
import { createServerBackends, type McpRedisServerBackends } from './redis-server-backends.js';
import { RedisTaskStore } from './redis-task.store.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/**
 * What `McpRedisModule` gives `McpModule`: the shared event bus, task store, task runner, registry state, single-use
 * `requestState` store, and the events extension's replay log, webhook subscriptions and deliveries. `serverOptions`
 * puts them all into your module options and refuses to start without shared
 * `requestState.keys`, since a per-process random key breaks every round whose retry lands on another replica.
 * With several servers in one application, each named server gets backends of its own (`forServer`, under
 * `<keyPrefix>:server:<name>`); the single-use store and the throttler storage stay shared.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     McpRedisModule.forRoot({ url: process.env.REDIS_URL }),
 *     McpModule.forRootAsync({
 *       inject: [McpRedis],
 *       useFactory: (redis: McpRedis) =>
 *         redis.serverOptions({ name: 'ops', version: '1.0.0', requestState: { keys: [process.env.MCP_STATE_KEY!] } }),
 *     }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 */
@Injectable()
export class McpRedis implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  /** The backends of each named server, made on first use (`forServer`). */
  private readonly servers = new Map<string, McpRedisServerBackends>();
  private bootstrapped = false;

  /** @internal Created by Nest's injector (`McpRedisModule`). */
  constructor(
    /** Change events (`McpPublisher`, runtime registration) for the listen streams of every replica. */
    readonly eventBus: RedisEventBus,
    /** Tasks, readable and updatable from every replica. */
    readonly taskStore: RedisTaskStore,
    /** Task rounds on a BullMQ queue: any replica's worker runs them; a dead worker's round is re-run elsewhere. */
    readonly taskRunner: BullMqTaskRunner,
    /** Used `requestState` ids, for `requestState.singleUse`: each state is accepted once across replicas. */
    readonly requestStateStore: RedisRequestStateStore,
    /** Rate-limit counts for `@nestjs/throttler` (`ThrottlerModule`'s `storage`): a limit holds across replicas. */
    readonly throttlerStorage: RedisThrottlerStorage,
    /** The runtime state of the server's lists (`registryState`): every replica lists the same entries. */
    readonly registryState: RedisRegistryState,
    /** The events extension's replay log on Redis Streams: a cursor from any replica resumes on any other. */
    readonly eventStore: RedisEventStore,
    /** Webhook subscriptions (secrets sealed) and endpoint consents, seen by every replica. */
    readonly webhookSubscriptionStore: RedisWebhookSubscriptionStore,
    /** Webhook deliveries as BullMQ jobs: exactly one replica makes each attempt; a pending retry survives its replica. */
    readonly webhookDeliveryQueue: BullMqWebhookDeliveryQueue,
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {}

  /**
   * The backends of the named server `name`, its own under `<keyPrefix>:server:<name>`: event bus, task store, BullMQ
   * task queue, registry state, event log, webhook subscriptions and delivery queue (one instance per name). Each
   * server of an application then runs its own task rounds and webhook deliveries, with its own handlers, on every
   * replica. `serverOptions(options, { server })` puts them into a server's options.
   */
  forServer(name: string): McpRedisServerBackends {
    if (typeof name !== 'string' || name.length === 0)
      throw new Error('McpRedis.forServer: the server name must be a non-empty string');
    let backends = this.servers.get(name);
    if (!backends) {
      backends = createServerBackends(name, this.connection, this.options, this.registryState);
      this.servers.set(name, backends);
      // Made after the application started (not from a module factory): it gets the start-up hook now.
      if (this.bootstrapped) void backends.eventStore.onApplicationBootstrap();
    }
    return backends;
  }

  /** The backends of the named servers made so far (`forServer`). @internal For the health indicator. */
  namedServers(): readonly McpRedisServerBackends[] {
    return [...this.servers.values()];
  }

  /** The servers' event logs start like the module's (Nest calls the hooks of the module's own). */
  async onApplicationBootstrap(): Promise<void> {
    this.bootstrapped = true;
    await Promise.all([...this.servers.values()].map((backends) => backends.eventStore.onApplicationBootstrap()));
  }

  /** Each server's backends stop as the module's do. */
  onModuleDestroy(): void {
    for (const backends of this.servers.values()) {
      backends.eventBus.onModuleDestroy();
      backends.taskStore.onModuleDestroy();
      backends.taskRunner.onModuleDestroy();
      backends.eventStore.onModuleDestroy();
    }
  }

  /** Closes each server's BullMQ workers and queues, as Nest closes the module's own. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      [...this.servers.values()].flatMap((backends) => [
        backends.taskRunner.onApplicationShutdown(),
        backends.webhookDeliveryQueue.onApplicationShutdown(),
      ]),
    );
  }

  /**
   * `options` with the Redis event bus, task store and runner, the shared registry state, the single-use
   * `requestState` store (unless `requestState.singleUse` is `false` explicitly), and the events extension's replay
   * log, webhook subscription store and delivery queue (unless `options.events` names its own). They are the named
   * server's own ({@link forServer}) when `choice.server` names it, or when `options` has `include` and a `name`;
   * otherwise the module's, those of a single server. Throws when `requestState.keys` is missing or empty, and when
   * `choice.server` is not `options.name`.
   *
   * @example
   * ```ts
   * McpModule.forRootAsync({
   *   name: 'admin',
   *   path: '/admin/mcp',
   *   include: [AdminModule],
   *   inject: [McpRedis],
   *   useFactory: (redis: McpRedis) => redis.serverOptions({ name: 'admin', version: '1.0.0', requestState }, { server: 'admin' }),
   * })
   * ```
   */
  serverOptions<T extends McpModuleOptions & { include?: readonly unknown[] }>(
    options: T,
    choice: McpRedisServerChoice = {},
  ): T {
    const keys = options.requestState?.keys;
    if (!Array.isArray(keys) || keys.length === 0) {
      throw new Error(
        'McpRedis.serverOptions: requestState.keys is required. Replicas must share the keys that seal requestState ' +
          '(a per-process random key breaks every round whose retry reaches another replica): generate one with ' +
          '`openssl rand -base64 32` and give the same value to every replica.',
      );
    }
    const { server } = choice;
    if (server !== undefined && (typeof server !== 'string' || server.length === 0 || server !== options.name)) {
      throw new Error(
        `McpRedis.serverOptions: { server: ${JSON.stringify(server)} } must be the server's name (options.name is ` +
          `${JSON.stringify(options.name)}): its backends are keyed by it`,
      );
    }
    // A named server has its own runtime state; a single server keeps the keys it always had.
    const named =
      server ?? (options.include !== undefined && typeof options.name === 'string' ? options.name : undefined);
    const backends = named === undefined ? this : this.forServer(named);
    return {
      ...options,
      eventBus: backends.eventBus,
      registryState: backends.registryState,
      requestState: {
        ...options.requestState,
        singleUse: options.requestState?.singleUse === false ? false : this.requestStateStore,
      },
      tasks: { ...options.tasks, store: backends.taskStore, runner: backends.taskRunner },
      events: {
        ...options.events,
        store: options.events?.store ?? backends.eventStore,
        webhooks: {
          ...options.events?.webhooks,
          store: options.events?.webhooks?.store ?? backends.webhookSubscriptionStore,
          queue: options.events?.webhooks?.queue ?? backends.webhookDeliveryQueue,
        },
      },
    };
  }
}
