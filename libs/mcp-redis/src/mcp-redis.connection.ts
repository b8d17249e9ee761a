import { Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { Redis, type RedisOptions } from 'ioredis';
import { closeRedisClient } from './close-redis-client.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

type ChannelHandler = (message: string) => void;

/**
 * The module's Redis connections, all made from one base (the `connection` option, or one built from `url` / `redis`):
 * a command client that fails fast when Redis is down, one subscriber shared by every channel, and duplicates for
 * BullMQ. Closes what it made at shutdown, within `commandTimeoutMs` whether Redis is up or down; never the caller's
 * own client.
 * @internal
 */
@Injectable()
export class McpRedisConnection implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('McpRedis');
  private readonly base: Redis;
  private readonly ownsBase: boolean;
  private readonly made: Redis[] = [];
  private readonly handlers = new Map<string, Set<ChannelHandler>>();
  /** Per channel: settles once Redis confirmed the subscription (or refused it). */
  private readonly confirmed = new Map<string, Promise<void>>();
  private readonly resubscribed = new Set<() => void>();
  private subscriberClient?: Redis;
  /** Rejects once the application shuts down: a subscription still waiting for Redis then stops waiting. */
  private readonly shutdown: Promise<never>;
  private endWaits!: (error: Error) => void;
  /** The client for commands: bounded by `commandTimeoutMs`, fails after one reconnection attempt. */
  readonly commands: Redis;

  constructor(private readonly options: McpRedisResolvedOptions) {
    const raw = options.raw;
    if (raw.connection) {
      this.base = raw.connection;
      this.ownsBase = false;
    } else {
      const redisOptions: RedisOptions = { lazyConnect: true, ...raw.redis };
      this.base = raw.url ? new Redis(raw.url, redisOptions) : new Redis(redisOptions);
      this.ownsBase = true;
      this.base.on('error', () => undefined);
    }
    this.commands = this.duplicate({ maxRetriesPerRequest: 1, commandTimeout: options.commandTimeoutMs });
    this.shutdown = new Promise<never>((_, reject) => (this.endWaits = reject));
    this.shutdown.catch(() => undefined);
  }

  /**
   * The command client with the Lua script `lua` defined on it as the command `name` (run by its SHA with EVALSHA,
   * loaded when Redis does not know it yet); `T` is the client's type with that command.
   */
  scripted<T extends Redis>(name: string, numberOfKeys: number, lua: string): T {
    if (!(name in this.commands)) this.commands.defineCommand(name, { numberOfKeys, lua });
    return this.commands as T;
  }

  /**
   * A new client with the base's settings and `overrides`, closed by this module at shutdown. Its errors are logged
   * once per outage (a client reconnects by itself).
   */
  duplicate(overrides: RedisOptions = {}): Redis {
    const client = this.base.duplicate({ lazyConnect: false, ...overrides });
    let failing = false;
    client.on('error', (error: Error) => {
      if (failing) return;
      failing = true;
      this.logger.warn(`Redis connection error: ${error.message}`);
    });
    client.on('ready', () => (failing = false));
    this.made.push(client);
    return client;
  }

  /**
   * Receives every message published on `channel` (one subscriber connection serves every channel). Resolves once
   * Redis confirmed the subscription (while Redis is down: once it is back), with the function that stops receiving;
   * rejects when the application shuts down before that.
   */
  async subscribe(channel: string, handler: ChannelHandler): Promise<() => void> {
    const subscriber = this.subscriber();
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      const confirmation = subscriber.subscribe(channel).then(() => undefined);
      this.confirmed.set(channel, confirmation);
      // A refusal is reported to the callers that await it; the set stays so that a resubscription can retry.
      confirmation.catch(() => undefined);
    }
    const handlers = set;
    // Added before the confirmation: a message in the same packet as the SUBSCRIBE reply is not lost.
    handlers.add(handler);
    const stop = () => {
      handlers.delete(handler);
      if (handlers.size > 0 || this.handlers.get(channel) !== handlers) return;
      this.handlers.delete(channel);
      this.confirmed.delete(channel);
      void subscriber.unsubscribe(channel).catch(() => undefined);
    };
    try {
      await Promise.race([this.confirmed.get(channel), this.shutdown]);
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  /**
   * Called each time the subscriber connection is back after an outage (or connected late, after a first attempt
   * failed), once Redis confirmed its channels again: messages published in between were missed, and every message
   * published from now on is received. Returns the function that stops the calls.
   */
  onResubscribed(listener: () => void): () => void {
    this.resubscribed.add(listener);
    return () => this.resubscribed.delete(listener);
  }

  /** Whether Redis answers a PING within the command timeout. */
  async ping(): Promise<boolean> {
    try {
      return (await this.commands.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /**
   * Subscriptions still waiting for Redis give up (a Redis that is down would keep them, and every shutdown hook that
   * awaits one, waiting forever). The connections stay open for the rest of the shutdown.
   */
  onModuleDestroy(): void {
    this.endWaits(new Error('The application is shutting down: the subscription was not confirmed by Redis'));
  }

  /** Closes every connection it made (QUIT when connected, dropped at once otherwise), each within `commandTimeoutMs`. */
  async onApplicationShutdown(): Promise<void> {
    const clients = this.ownsBase ? [...this.made, this.base] : this.made;
    await Promise.all(clients.map((client) => closeRedisClient(client, this.options.commandTimeoutMs)));
  }

  private subscriber(): Redis {
    if (this.subscriberClient) return this.subscriberClient;
    // Retries forever: a subscriber must come back after any outage. It subscribes its channels again itself rather
    // than with ioredis's autoResubscribe: ioredis emits 'ready' before Redis confirmed that re-subscription, so a
    // message published in that gap would be lost after `onResubscribed` said nothing more would be.
    const subscriber = this.duplicate({ maxRetriesPerRequest: null, autoResubscribe: false, enableOfflineQueue: true });
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) {
        try {
          handler(message);
        } catch (error) {
          this.logger.error(`A handler of ${channel} failed`, (error as Error)?.stack ?? String(error));
        }
      }
    });
    // 'close' before a 'ready' means messages may have been missed: after an outage, or a first connection that failed.
    let lost = false;
    subscriber.on('close', () => (lost = true));
    subscriber.on('ready', () => {
      if (!lost) return;
      lost = false;
      void this.resubscribe(subscriber);
    });
    this.subscriberClient = subscriber;
    return subscriber;
  }

  /** Subscribes every channel again and, once Redis confirmed them, tells the `onResubscribed` listeners. */
  private async resubscribe(subscriber: Redis): Promise<void> {
    const channels = [...this.handlers.keys()];
    try {
      if (channels.length > 0) await subscriber.subscribe(...channels);
    } catch {
      // The connection failed again: its next 'ready' subscribes again.
      return;
    }
    for (const listener of [...this.resubscribed]) {
      try {
        listener();
      } catch (error) {
        this.logger.error('An onResubscribed listener failed', (error as Error)?.stack ?? String(error));
      }
    }
  }
}
