import { randomBytes } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  type McpEventReadFrom,
  type McpEventReadOptions,
  type McpEventReadResult,
  type McpEventRetention,
  type McpEventStore,
  type McpLoggedEvent,
  type McpStoredEvent,
  parseTraceContext,
} from 'nest-mcp/backend';
import { McpRedisConnection } from '../mcp-redis.connection.js';
import { McpRedisResolvedOptions } from '../mcp-redis-resolved-options.js';
import { withTimeout } from '../with-timeout.js';
import { APPEND_EVENT, LOG_HEAD, READ_LOG } from './event-log.scripts.js';
import { compareEntryIds, isEntryId, parsePosition, positionOf } from './stream-position.js';

/** Entries read per round trip when a replica catches up after its subscriber lost Redis. */
const CATCH_UP_BATCH = 500;
/** Most events a catch-up hands on per type (beyond, the streams' readers resume from their cursors). */
const MAX_CATCH_UP = 10_000;

/**
 * The replay log of the events extension on Redis Streams, shared by every replica: one stream per event type
 * (`<prefix>:events:log:<name>`), trimmed on every append and read to the type's `replay` (`maxEvents` exactly,
 * `windowMs` by the entries' ids, which carry Redis's clock). A position is the entry's stream id (zero-padded, so that
 * positions compare as strings) behind the log's epoch: a random id per log, so that a cursor from a log that is gone
 * (a flushed Redis) resumes `truncated` instead of being read as a position of the new one. A read is truncated when
 * Redis deleted an entry after the cursor (the largest id trimmed, kept per type), or when the window or `maxAgeMs` skips some.
 *
 * Every append is published on `<prefix>:events:appended` by the same script that appends it, so the channel's order is
 * the log's order, and push streams on every replica (the emitting one included) hear each event once, in order. Pub/sub
 * keeps nothing: when the subscriber connection was lost, this replica reads each log from the last position it heard
 * and hands on what it missed before any newer message (types without replay are live only: what was missed is gone).
 *
 * Every method rejects within `commandTimeoutMs` when Redis does not answer: `events/poll` then fails with `-32603`,
 * and a push stream reports `notifications/events/error` and reads again.
 */
@Injectable()
export class RedisEventStore implements McpEventStore, OnApplicationBootstrap, OnModuleDestroy {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;
  private readonly logger = new Logger('McpRedisEvents');
  private readonly channel: string;
  private readonly epochs: string;
  private readonly trimmed: string;
  private readonly listeners = new Set<(logged: McpLoggedEvent) => void>();
  /** Per type, the last position heard on the channel: where a catch-up starts. */
  private readonly heard = new Map<string, { epoch: string; id: string }>();
  /** Messages heard while a catch-up runs, handed on after it (what it already handed on is skipped). */
  private held?: McpLoggedEvent[];
  private remote?: { stop: Promise<(() => void) | undefined>; stopResync: () => void };
  private closed = false;
  private dropped = 0;

  /** @internal Created by Nest's injector (`McpRedisModule`), from the module's internal connection and options. */
  constructor(
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {
    this.channel = options.key('events', 'appended');
    this.epochs = options.key('events', 'epochs');
    this.trimmed = options.key('events', 'trimmed');
  }

  /** The named server this is of (`McpRedis.forServer`); `undefined` for the module's own. */
  get server(): string | undefined {
    return this.options.server;
  }

  /** How many messages from the channel were dropped as malformed (diagnostics). */
  get droppedMessages(): number {
    return this.dropped;
  }

  async append(event: McpStoredEvent, retention: McpEventRetention | undefined): Promise<string | null> {
    const json = JSON.stringify(event);
    if (!retention) {
      // Live only: nothing is kept, every replica still hears of it.
      await this.bounded(this.connection.commands.publish(this.channel, `- - ${json}`));
      return null;
    }
    const [epoch, id] = (await this.bounded(
      APPEND_EVENT.run(
        this.connection.commands,
        [this.logKey(event.name), this.epochs, this.trimmed],
        [event.name, newEpoch(), json, retention.maxEvents, retention.windowMs, this.channel],
      ),
    )) as [string, string];
    return positionOf(epoch, id);
  }

  async head(name: string): Promise<string> {
    const [epoch, id] = (await this.bounded(
      LOG_HEAD.run(this.connection.commands, [this.logKey(name), this.epochs, this.trimmed], [name, newEpoch()]),
    )) as [string, string];
    return positionOf(epoch, id);
  }

  async read(name: string, from: McpEventReadFrom, options: McpEventReadOptions): Promise<McpEventReadResult> {
    const asked = parsePosition(from.position);
    // Read first with the position as given; a foreign one (another epoch, past the end) is read again from the start.
    const start = asked ? `${from.inclusive ? '' : '('}${asked.id}` : '-';
    let answer = await this.readLog(name, start, options);
    const known = asked !== undefined && asked.epoch === answer.epoch && compareEntryIds(asked.id, answer.lastId) <= 0;
    if (!known && start !== '-') answer = await this.readLog(name, '-', options);
    const { epoch, lastId, trimmedId, entries } = answer;
    // Something after the position was trimmed: what the reader missed is gone.
    let truncated = !known || compareEntryIds(trimmedId, asked.id) > 0 || (from.inclusive && trimmedId === asked.id);
    const horizon = Math.max(Date.now() - options.retention.windowMs, options.notBefore ?? Number.NEGATIVE_INFINITY);
    const events: McpLoggedEvent[] = [];
    let lastExamined: string | undefined;
    let more = false;
    for (const entry of entries) {
      if (events.length === options.limit) {
        more = true;
        break;
      }
      lastExamined = entry.id;
      if (!entry.event) continue;
      if (entry.event.appendedAt < horizon) {
        truncated = true;
        continue;
      }
      events.push({ position: positionOf(epoch, entry.id), event: entry.event });
    }
    // Every entry fetched was examined (some skipped): there may be more after them.
    if (!more && entries.length > options.limit && lastExamined === entries.at(-1)!.id) more = true;
    let next: McpEventReadFrom;
    if (lastExamined !== undefined) next = { position: positionOf(epoch, lastExamined), inclusive: false };
    else if (known && !truncated) next = from;
    else next = { position: positionOf(epoch, lastId), inclusive: false };
    return { events, truncated, next, more };
  }

  subscribe(listener: (logged: McpLoggedEvent) => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1 && !this.remote && !this.closed) this.listenRemote();
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      this.unlistenRemote();
    };
  }

  /** The application starts serving once the live channel is confirmed (or could not be: then it is retried). */
  async onApplicationBootstrap(): Promise<void> {
    if (this.remote) await withTimeout(this.remote.stop, this.options.commandTimeoutMs).catch(() => undefined);
  }

  onModuleDestroy(): void {
    this.closed = true;
    this.unlistenRemote();
  }

  private async readLog(
    name: string,
    start: string,
    options: McpEventReadOptions,
  ): Promise<{
    epoch: string;
    lastId: string;
    trimmedId: string;
    entries: Array<{ id: string; event?: McpStoredEvent }>;
  }> {
    const [epoch, lastId, trimmedId, raw] = (await this.bounded(
      READ_LOG.run(
        this.connection.commands,
        [this.logKey(name), this.epochs, this.trimmed],
        [name, newEpoch(), start, options.retention.windowMs, options.limit + 1],
      ),
    )) as [string, string, string, Array<[string, string[]]>];
    return {
      epoch,
      lastId,
      trimmedId,
      entries: raw.map(([id, fields]) => ({ id, event: this.decode(fields[1], name) })),
    };
  }

  private listenRemote(): void {
    const stopResync = this.connection.onResubscribed(() => void this.catchUp());
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
    void remote.stop.then((stop) => stop?.());
  }

  /** One message of the channel: `<epoch> <id> <event JSON>` (`- -` for a type without replay). */
  private receive(message: string): void {
    const first = message.indexOf(' ');
    const second = message.indexOf(' ', first + 1);
    const epoch = message.slice(0, first);
    const id = message.slice(first + 1, second);
    const event = second > 0 ? this.decode(message.slice(second + 1)) : undefined;
    const live = epoch === '-' && id === '-';
    if (!event || (!live && (!/^[0-9a-f]{12}$/.test(epoch) || !isEntryId(id)))) {
      this.dropped++;
      this.logger.debug(`Dropped a malformed message on ${this.channel} (${this.dropped} so far)`);
      return;
    }
    if (!live) this.heard.set(event.name, { epoch, id });
    const logged: McpLoggedEvent = { position: live ? null : positionOf(epoch, id), event };
    if (this.held) this.held.push(logged);
    else this.deliver(logged);
  }

  /**
   * After the subscriber lost Redis: hands on, per type, what the log holds after the last position heard, then what
   * the channel brought meanwhile (without what the catch-up handed on already).
   */
  private async catchUp(): Promise<void> {
    if (this.held || this.closed) return;
    this.held = [];
    const handed = new Map<string, string>();
    try {
      for (const [name, at] of [...this.heard]) {
        let start = `(${at.id}`;
        for (let count = 0; count < MAX_CATCH_UP; count += CATCH_UP_BATCH) {
          const read = await this.readLog(name, start, {
            limit: CATCH_UP_BATCH,
            retention: { windowMs: 0, maxEvents: Number.MAX_SAFE_INTEGER },
          });
          if (read.epoch !== at.epoch) break;
          const entries = read.entries.slice(0, CATCH_UP_BATCH);
          for (const entry of entries) {
            if (entry.event) this.deliver({ position: positionOf(read.epoch, entry.id), event: entry.event });
            handed.set(name, entry.id);
          }
          if (read.entries.length <= CATCH_UP_BATCH) break;
          start = `(${entries.at(-1)!.id}`;
        }
      }
    } catch (error) {
      this.logger.warn(
        `Could not catch up on the event logs after a Redis outage: ${(error as Error)?.message ?? String(error)}`,
      );
    } finally {
      const held = this.held ?? [];
      this.held = undefined;
      for (const logged of held) {
        const done = handed.get(logged.event.name);
        const at = logged.position === null ? undefined : parsePosition(logged.position);
        if (done !== undefined && at && compareEntryIds(at.id, done) <= 0) continue;
        this.deliver(logged);
      }
    }
  }

  private deliver(logged: McpLoggedEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(logged);
      } catch (error) {
        this.logger.error(`A listener of the event log failed`, (error as Error)?.stack ?? String(error));
      }
    }
  }

  /** A stored occurrence, checked: anything else is dropped (a foreign writer on the prefix). */
  private decode(json: string | undefined, name?: string): McpStoredEvent | undefined {
    if (json === undefined) return undefined;
    try {
      const event = JSON.parse(json) as McpStoredEvent;
      const valid =
        typeof event === 'object' &&
        event !== null &&
        typeof event.eventId === 'string' &&
        typeof event.name === 'string' &&
        (name === undefined || event.name === name) &&
        typeof event.timestamp === 'string' &&
        typeof event.appendedAt === 'number' &&
        typeof event.data === 'object' &&
        event.data !== null &&
        !Array.isArray(event.data);
      if (!valid) return undefined;
      if (event.traceContext === undefined) return event;
      // The emitting span's context, checked like any input: a malformed one is dropped, the occurrence kept.
      const { traceContext, ...occurrence } = event;
      const checked = parseTraceContext(traceContext);
      return checked ? { ...occurrence, traceContext: checked } : occurrence;
    } catch {
      return undefined;
    }
  }

  private logKey(name: string): string {
    return this.options.key('events', 'log', name);
  }

  private bounded<T>(promise: Promise<T>): Promise<T> {
    return withTimeout(promise, this.options.commandTimeoutMs);
  }
}

/** An epoch for a log that has none yet (used only then). */
function newEpoch(): string {
  return randomBytes(6).toString('hex');
}
