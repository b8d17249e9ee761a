import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { McpChangeEvent, McpEventBus } from 'nest-mcp/backend';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';
import { decodeEvent, encodeEvent } from './redis-event.codec.js';

/** Most publishes waiting for Redis at once; beyond it (Redis slow or down) events stay local and a resync follows. */
const MAX_PUBLISHES_IN_FLIGHT = 10_000;

/**
 * Change events (`McpPublisher`, runtime registration) for the listen streams of every replica, on Redis pub/sub: one
 * channel, `<keyPrefix>:events`.
 *
 * - `publish` delivers to this replica's listeners at once, synchronously, whether Redis is up or not, then shares
 *   the event on the channel in the background: it never throws into the caller nor waits for Redis. Each replica
 *   tags what it publishes with a random id and skips its own messages when they come back, so nothing arrives twice.
 * - Pub/sub keeps nothing: a replica whose subscriber lost Redis misses what was published meanwhile. When its
 *   subscription is back, the bus tells its listeners `{ type: 'resync' }`, and every listen stream and session is
 *   told again about everything it follows. Likewise, when this replica could not share some events (Redis down or
 *   slow), it publishes a `resync` for the others once Redis takes its messages again.
 * - Messages from the channel are checked (see `decodeEvent`): anything but a well-formed event is dropped.
 * - It subscribes when the first listener arrives, and unsubscribes when the last one leaves.
 */
@Injectable()
export class RedisEventBus implements McpEventBus, OnModuleDestroy {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;

  private readonly logger = new Logger('McpRedisEventBus');
  /** This replica's tag on the messages it publishes. */
  private readonly origin = randomBytes(12).toString('base64url');
  private readonly channel: string;
  private readonly listeners = new Set<(event: McpChangeEvent) => void>();
  /** The channel subscription while there are listeners: stops it, once it is set up. */
  private remote?: { stop: Promise<(() => void) | undefined>; stopResync: () => void };
  private inFlight = 0;
  /** Some event of ours did not reach Redis: the others are told to resync once it does again. */
  private unshared = false;
  /** Warned about this outage already (publishing side). */
  private failing = false;
  private closed = false;
  private dropped = 0;

  /** The named server this bus is of (`McpRedis.forServer`); `undefined` for the module's own. */
  readonly server?: string;

  /** @internal Created by Nest's injector (`McpRedisModule`), from the module's internal connection and options. */
  constructor(
    private readonly connection: McpRedisConnection,
    options: McpRedisResolvedOptions,
  ) {
    this.channel = options.key('events');
    this.server = options.server;
    // The command connection is back: if events of ours were lost meanwhile, the other replicas are told now.
    connection.commands.on('ready', () => this.reshare());
  }

  /** How many messages from the channel were dropped as malformed (for diagnostics). */
  get droppedMessages(): number {
    return this.dropped;
  }

  /** Delivers `event` to this replica's listeners now, and shares it with the other replicas through Redis. */
  publish(event: McpChangeEvent): void {
    this.deliver(event);
    this.share(event);
  }

  subscribe(listener: (event: McpChangeEvent) => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1 && !this.remote && !this.closed) this.listenRemote();
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      this.unlistenRemote();
    };
  }

  onModuleDestroy(): void {
    // From here on the connections close: events stay local, and the outage that follows is no news.
    this.closed = true;
    this.unlistenRemote();
  }

  private deliver(event: McpChangeEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(`A listener of the ${event.type} event failed`, (error as Error)?.stack ?? String(error));
      }
    }
  }

  private share(event: McpChangeEvent): void {
    if (this.closed) return;
    const message = encodeEvent(this.origin, event);
    if (message === undefined) {
      this.logger.error(
        `A ${event.type} event is not plain JSON of at most 1 MiB: it reached this replica's listeners only`,
      );
      return;
    }
    if (this.inFlight >= MAX_PUBLISHES_IN_FLIGHT) {
      this.lost(new Error(`${MAX_PUBLISHES_IN_FLIGHT} publishes are waiting for Redis already`));
      return;
    }
    this.inFlight++;
    this.connection.commands.publish(this.channel, message).then(
      () => {
        this.inFlight--;
        this.reshare();
      },
      (error: unknown) => {
        this.inFlight--;
        this.lost(error);
      },
    );
  }

  /** An event did not reach Redis: warn once per outage, and remember to tell the others. */
  private lost(error: unknown): void {
    if (this.closed) return;
    this.unshared = true;
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(
      `Change events cannot reach the other replicas (${(error as Error)?.message ?? String(error)}); ` +
        'they still reach this replica, and the others are told to resync once Redis is back',
    );
  }

  /** Redis takes messages again: if some of ours were lost, tell the other replicas to resync. */
  private reshare(): void {
    if (this.closed || !this.unshared) return;
    this.unshared = false;
    if (this.failing) {
      this.failing = false;
      this.logger.log('Change events reach the other replicas again');
    }
    this.share({ type: 'resync' });
  }

  private listenRemote(): void {
    const stopResync = this.connection.onResubscribed(() => this.deliver({ type: 'resync' }));
    const stop = this.connection
      .subscribe(this.channel, (message) => this.receive(message))
      .catch((error: unknown) => {
        if (!this.closed)
          this.logger.warn(`Could not subscribe to ${this.channel}: ${(error as Error)?.message ?? String(error)}`);
        return undefined;
      });
    this.remote = { stop, stopResync };
  }

  private unlistenRemote(): void {
    const remote = this.remote;
    if (!remote) return;
    this.remote = undefined;
    remote.stopResync();
    // Stopped once the subscription is set up (it may still be waiting for Redis).
    void remote.stop.then((stop) => stop?.());
  }

  private receive(message: string): void {
    const envelope = decodeEvent(message);
    if (!envelope) {
      this.dropped++;
      this.logger.debug(`Dropped a malformed message on ${this.channel} (${this.dropped} so far)`);
      return;
    }
    if (envelope.origin === this.origin) return;
    this.deliver(envelope.event);
  }
}
