import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis, type RedisOptions } from 'ioredis';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

type ChannelHandler = (message: string) => void;

/**
 * The module's Redis connections, all made from one base (the `connection` option, or one built from `url` / `redis`):
 * a command client that fails fast when Redis is down, one subscriber shared by every channel, and duplicates for
 * BullMQ. Closes what it made at shutdown; never the caller's own client.
 * @internal
 */
@Injectable()
export class McpRedisConnection implements OnApplicationShutdown {
  private readonly logger = new Logger('McpRedis');
  private readonly base: Redis;
  private readonly ownsBase: boolean;
  private readonly made: Redis[] = [];
  private readonly handlers = new Map<string, Set<ChannelHandler>>();
  private readonly resubscribed = new Set<() => void>();
  private subscriberClient?: Redis;
  private subscriberReadyOnce = false;
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
   * Receives every message published on `channel` (one subscriber connection serves every channel). Returns the
   * function that stops receiving.
   */
  async subscribe(channel: string, handler: ChannelHandler): Promise<() => void> {
    const subscriber = this.subscriber();
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      await subscriber.subscribe(channel);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size > 0 || this.handlers.get(channel) !== set) return;
      this.handlers.delete(channel);
      void subscriber.unsubscribe(channel).catch(() => undefined);
    };
  }

  /**
   * Called each time the subscriber connection is back after an outage (its channels are subscribed again): messages
   * published in between were missed. Returns the function that stops the calls.
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

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.made.map((client) => quit(client)));
    if (this.ownsBase) await quit(this.base);
  }

  private subscriber(): Redis {
    if (this.subscriberClient) return this.subscriberClient;
    // Retries forever: a subscriber must come back after any outage, and ioredis subscribes its channels again.
    const subscriber = this.duplicate({ maxRetriesPerRequest: null, autoResubscribe: true, enableOfflineQueue: true });
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) {
        try {
          handler(message);
        } catch (error) {
          this.logger.error(`A handler of ${channel} failed`, (error as Error)?.stack ?? String(error));
        }
      }
    });
    subscriber.on('ready', () => {
      if (!this.subscriberReadyOnce) {
        this.subscriberReadyOnce = true;
        return;
      }
      for (const listener of this.resubscribed) listener();
    });
    this.subscriberClient = subscriber;
    return subscriber;
  }
}

async function quit(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
