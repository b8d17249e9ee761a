import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { AdmissionQuota } from '../protocol/admission-quota.js';
import {
  MCP_EVENT_STORE,
  type McpEventReadFrom,
  type McpEventStore,
  type McpLoggedEvent,
} from '../protocol/event-store.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { MetaKeys } from '../protocol/meta-keys.constants.js';
import type { EventTelemetry } from '../telemetry/event-telemetry.interface.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { EventCursorCodec } from './event-cursor.codec.js';
import { McpEventErrors } from './event-errors.js';
import { EventOccurrenceBuilder } from './event-occurrence.builder.js';
import { notBeforeOf, optionalNonNegativeInteger } from './event-params.util.js';
import { EventSubscriptionResolver, type ResolvedEventSubscription } from './event-subscription.resolver.js';
import { McpEventTypes } from './event-types.registry.js';
import { READ_BATCH } from './events.constants.js';

/** Reads of the log a stream tries before it gives up (a store that is down for longer terminates it). */
const MAX_READ_ATTEMPTS = 5;
/** Pause between two of them. */
const READ_RETRY_MS = 250;
/** The error a frame reports when the log could not be read: a category, never the store's own message. */
const LOG_UNAVAILABLE = {
  code: -32603,
  message: 'UpstreamError: the event log could not be read',
  data: { reason: 'store_unavailable' },
};

/** One open push stream, as the service sees it: the type it follows, and how it hears of the log and of its end. */
interface OpenStream {
  readonly name: string;
  hear(logged: McpLoggedEvent): void;
  terminate(error: { code: number; message: string; data?: unknown }): void;
}

/**
 * `events/stream` (SEP-3415, "Push-Based Delivery"): one long-lived request per subscription. Every check runs before
 * the stream opens (a refusal is a plain JSON-RPC error); then the first frame is `notifications/events/active`
 * (`cursor`, `truncated`), the events the log still holds after the cursor follow (through the matcher, in log
 * order), then live ones as they are emitted, with `notifications/events/heartbeat` carrying the position checked so
 * far at least every `events.heartbeatMs` (data frames: a heartbeat advances the client's cursor). Every frame is
 * tagged with `_meta["io.modelcontextprotocol/subscriptionId"]` = the request id, its JSON type kept.
 *
 * Authorization is checked again at every heartbeat: a token that expired, or scopes, the `visibility` hook or
 * `authorize` that now refuse, end the stream with `notifications/events/terminated` (`Forbidden`, `data.reason`
 * `token_expired` or `revoked`).
 *
 * The stream ends when the client closes it (nothing more is written), when its type is removed
 * (`notifications/events/terminated` with `NotFound`, then the closing result) or when the server shuts down (the
 * closing result). A read of the log that fails (a shared store that is briefly down) is reported with
 * `notifications/events/error` and tried again; after several failures the stream is terminated with `-32603`. Streams are routed `delivery: 'stream'` (no call timeout, outside the calls-in-flight caps) and
 * capped by a fair share of their own (`events.maxStreams…`, `ResourceExhausted` with `limit: "streams"`).
 */
@Injectable()
export class EventStreamService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpEvents');
  private readonly open = new Set<OpenStream>();
  private readonly quota: AdmissionQuota;
  private stopHearing?: () => void;
  private typeChanges?: Subscription;

  constructor(
    private readonly resolver: EventSubscriptionResolver,
    private readonly cursors: EventCursorCodec,
    private readonly occurrences: EventOccurrenceBuilder,
    private readonly errors: McpEventErrors,
    private readonly types: McpEventTypes,
    private readonly options: McpResolvedOptions,
    @Inject(MCP_EVENT_STORE) private readonly store: McpEventStore,
    @Optional() @Inject(McpTelemetry) private readonly telemetry?: Pick<EventTelemetry, 'streamPushes'>,
  ) {
    const { maxStreams, maxStreamsPerPrincipal, maxStreamsPerAddress } = options.events;
    this.quota = new AdmissionQuota({
      total: maxStreams,
      perPrincipal: maxStreamsPerPrincipal,
      perAddress: maxStreamsPerAddress,
    });
  }

  onModuleInit(): void {
    this.stopHearing = this.store.subscribe((logged) => {
      for (const stream of this.open) if (stream.name === logged.event.name) stream.hear(logged);
    });
    this.typeChanges = this.types.changes$.subscribe(({ name, removed }) => {
      if (!removed) return;
      for (const stream of [...this.open]) if (stream.name === name) stream.terminate(this.errors.removedType(name));
    });
  }

  onModuleDestroy(): void {
    this.stopHearing?.();
    this.typeChanges?.unsubscribe();
  }

  /** Streams open right now (diagnostics). */
  get openStreams(): number {
    return this.open.size;
  }

  async stream(scope: McpRequestScope): Promise<JsonObject> {
    const subscription = await this.resolver.resolve(scope, 'push');
    const { type, hash } = subscription;
    const replay = type.retention !== undefined;
    // Non-replay types: every cursor is null (SEP-3415, "Cursor Lifecycle"); a cursor sent for one is still checked.
    const from = this.cursors.open(scope.params.cursor, type.name, hash);
    const maxAgeMs = optionalNonNegativeInteger(scope.params, 'maxAgeMs');
    const admission = this.quota.tryAcquire({ principal: scope.principal, address: scope.remoteAddress });
    if ('refused' in admission) {
      const { maxStreams, maxStreamsPerPrincipal, maxStreamsPerAddress } = this.options.events;
      const max =
        admission.refused === 'total'
          ? maxStreams
          : admission.refused === 'principal'
            ? maxStreamsPerPrincipal
            : maxStreamsPerAddress;
      throw this.errors.resourceExhausted('streams', max);
    }
    const tag = { [MetaKeys.subscriptionId]: scope.id };
    const notify = (method: string, params: JsonObject) =>
      scope.channel.notify({ jsonrpc: '2.0', method, params: { ...params, _meta: tag } });
    const cursorOf = (at: McpEventReadFrom | undefined) =>
      replay && at ? this.cursors.mint(type.name, hash, at) : null;
    // Taken now, while the stream's own span is the active one: each push is its child, linked to its emitter.
    const pushes = this.telemetry?.streamPushes();

    return new Promise<JsonObject>((resolve) => {
      /** The position checked so far (after the last event heard or read). */
      let at: McpEventReadFrom | undefined = from;
      /** Live events heard while the backlog is read, then every live event, in order. */
      const pending: McpLoggedEvent[] = [];
      let replaying = true;
      let ended = false;
      let activated = false;
      let work = Promise.resolve();
      /** Runs deliveries one after the other: the matcher may be async, the order must hold. */
      const serially = (task: () => Promise<void>) => {
        work = work
          .then(task)
          .catch((error: unknown) =>
            this.logger.error(`events/stream of ${type.name} failed`, (error as Error)?.stack ?? String(error)),
          );
      };
      const deliver = async (logged: McpLoggedEvent): Promise<void> => {
        if (ended) return;
        // Already read from the backlog, or before where this stream started.
        if (replay && at && logged.position !== null && !after(logged.position, at)) return;
        if (logged.position !== null) at = { position: logged.position, inclusive: false };
        const occurrence = await this.occurrences.build(type, logged, subscription.value, scope.principal, 'push');
        if (!occurrence || ended) return;
        const push = pushes?.start(type.name, logged.event.traceContext);
        const sent = notify('notifications/events/event', { ...occurrence, cursor: cursorOf(at) });
        push?.end(sent);
        if (!sent) end();
      };
      const stream: OpenStream = {
        name: type.name,
        hear: (logged) => {
          if (replaying) pending.push(logged);
          else serially(() => deliver(logged));
        },
        terminate: (error) => {
          serially(async () => {
            if (ended) return;
            notify('notifications/events/terminated', { error });
            end();
          });
        },
      };
      const heartbeat = setInterval(() => {
        if (replaying) return;
        serially(async () => {
          if (ended) return;
          // Authorization is checked again on every heartbeat (SEP-3415, "Authorization"; the digest's P4 for a token
          // that expired under a long-lived stream): a refusal ends the stream with Forbidden.
          const refusal = await this.refusal(subscription, scope);
          if (ended) return;
          if (refusal) {
            notify('notifications/events/terminated', { error: refusal });
            return end();
          }
          notify('notifications/events/heartbeat', { cursor: cursorOf(at) });
        });
      }, this.options.events.heartbeatMs);
      heartbeat.unref();
      const end = () => {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        this.open.delete(stream);
        admission.lease.release();
        scope.cancellation.signal.removeEventListener('abort', end);
        resolve({ _meta: tag });
      };
      // Heard from now on: nothing emitted while the backlog is read is lost.
      this.open.add(stream);
      if (scope.cancellation.signal.aborted) return end();
      scope.cancellation.signal.addEventListener('abort', end, { once: true });
      /** A read of the log, tried again after an error frame; undefined when the stream ended meanwhile. */
      const reading = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await read();
          } catch (error) {
            if (ended) return undefined;
            this.logger.warn(
              `events/stream of ${type.name}: the event log could not be read (${(error as Error)?.message ?? String(error)})`,
            );
            // Nothing may precede `active`: a stream whose first read fails starts where its cursor says.
            if (!activated) activate(at, false);
            if (attempt >= MAX_READ_ATTEMPTS) {
              notify('notifications/events/terminated', { error: LOG_UNAVAILABLE });
              end();
              return undefined;
            }
            notify('notifications/events/error', { error: LOG_UNAVAILABLE });
            await new Promise((resolve) => setTimeout(resolve, READ_RETRY_MS));
          }
        }
      };
      const activate = (position: McpEventReadFrom | undefined, truncated: boolean) => {
        activated = true;
        notify('notifications/events/active', { cursor: cursorOf(position), truncated });
      };
      serially(async () => {
        const start = await reading(() => this.start(subscription, from, maxAgeMs));
        if (!start || ended) return;
        at = start.at;
        // A first read that succeeded after an error frame but was truncated says so with a fresh `active` (SEP-3415: a gap
        // mid-stream is a new `active` with `truncated: true`).
        if (!activated || start.truncated) activate(at, start.truncated);
        for (const logged of start.backlog) await deliver(logged);
        let next = start.next;
        while (next && !ended) {
          const from = next;
          const read = await reading(() =>
            this.store.read(type.name, from, { limit: READ_BATCH, retention: type.retention! }),
          );
          if (!read) return;
          for (const logged of read.events) await deliver(logged);
          next = read.more ? read.next : undefined;
        }
        replaying = false;
        for (const logged of pending.splice(0)) await deliver(logged);
      });
    });
  }

  /** Why a stream's caller may no longer have it (its token expired, or scopes, hook or `authorize` refuse), if so. */
  private async refusal(
    subscription: ResolvedEventSubscription,
    scope: McpRequestScope,
  ): Promise<JsonObject | undefined> {
    const expiresAt = scope.accessToken?.expiresAt;
    const reason =
      expiresAt !== undefined && expiresAt * 1000 <= Date.now()
        ? 'token_expired'
        : !(await this.resolver.stillAllowed(subscription.type, subscription.value, this.resolver.callerOf(scope)))
          ? 'revoked'
          : undefined;
    if (!reason) return undefined;
    const error = this.errors.forbidden(reason);
    return { code: error.code, message: error.message, data: error.data as JsonObject };
  }

  /**
   * Where the stream starts: for a `null` cursor (or a type without replay) the current end of the log; otherwise the
   * first batch after the cursor, whether it was truncated, and where to read on.
   */
  private async start(
    { type }: ResolvedEventSubscription,
    from: McpEventReadFrom | undefined,
    maxAgeMs: number | undefined,
  ): Promise<{
    at: McpEventReadFrom | undefined;
    truncated: boolean;
    backlog: McpLoggedEvent[];
    next?: McpEventReadFrom;
  }> {
    if (!type.retention) return { at: undefined, truncated: false, backlog: [] };
    if (!from)
      return { at: { position: await this.store.head(type.name), inclusive: false }, truncated: false, backlog: [] };
    const read = await this.store.read(type.name, from, {
      limit: READ_BATCH,
      notBefore: notBeforeOf(maxAgeMs),
      retention: type.retention,
    });
    // A truncated read resumed later than the cursor: the stream starts where it resumed, at its first event.
    const first = read.events[0];
    const at = read.truncated ? (first ? { position: first.position!, inclusive: true } : read.next) : from;
    return { at, truncated: read.truncated, backlog: [...read.events], next: read.more ? read.next : undefined };
  }
}

/** Whether `position` comes after the checked position `at` (positions of one log compare as strings). */
function after(position: string, at: McpEventReadFrom): boolean {
  return at.inclusive ? position >= at.position : position > at.position;
}
