import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry, type McpListKind } from '../discovery/mcp.registry.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { MetaKeys } from '../protocol/meta-keys.constants.js';
import { AdmissionQuota, type AdmissionRefusal } from '../protocol/admission-quota.js';
import type { McpListener } from '../protocol/delivery-authorizer.interface.js';
import { mayDeliver } from './delivery.policy.js';
import type { McpChangeEvent } from '../protocol/mcp-event.interface.js';
import { MCP_EVENT_BUS, type McpEventBus } from '../protocol/mcp-event-bus.interface.js';
import {
  notificationFor,
  parseSubscriptionFilter,
  resyncNotifications,
  type ListenFeatures,
  type SubscriptionFilter,
} from './subscription-filter.js';
import { MCP_TASK_STORE, type McpTaskStore } from '../protocol/task-store.interface.js';
import { detailedTask } from '../protocol/task-wire.util.js';
import type { McpTaskRecord } from '../protocol/task-record.interface.js';
import {
  MCP_LISTENER_VISIBILITY,
  type McpListenerView,
  type McpListenerVisibility,
} from '../protocol/listener-visibility.interface.js';

const LIST_EVENTS: Record<McpListKind, McpChangeEvent> = {
  tools: { type: 'toolsListChanged' },
  prompts: { type: 'promptsListChanged' },
  resources: { type: 'resourcesListChanged' },
  resourceTemplates: { type: 'resourcesListChanged' },
};

/** The task notifications of one listen stream: every change of a watched task, and its current state on a resync. */
interface TaskFeed {
  resync(): void;
  stop(): void;
}

const NO_TASKS: TaskFeed = { resync: () => undefined, stop: () => undefined };

/** Whether a listener with `view` may hear of `uri` (no view: nothing is hidden from it). */
const hears = (view: McpListenerView | undefined, uri: string): boolean => view === undefined || view.hears(uri);

/** Seconds a refused listener is told to wait (`Retry-After`, and `error.data.retryAfterSeconds`). */
export const LISTEN_RETRY_AFTER_SECONDS = 1;

/**
 * `subscriptions/listen` (spec 2026-07-28: basic/patterns/subscriptions): acknowledges the honoured filter first, then
 * forwards matching change events from the event bus, each tagged with the subscription id, with keep-alive comments in
 * between. The stream lasts until the client closes it; on shutdown the server ends it with the closing result. Runtime
 * changes of the registry are published as list changes.
 *
 * Streams are admitted by fair shares (a total, per principal, per remote address for anonymous callers), and each
 * event reaches a stream only if its audience and the `authorizeDelivery` hook admit the stream's principal.
 *
 * A `resync` from the bus (events may have been missed) tells each stream again about everything it follows: its
 * lists, its resource URIs, and the current state of its tasks.
 *
 * Resource URIs follow per-caller visibility (`McpListenerVisibility`: `@McpScopes` and the `visibility` hook, as
 * `resources/read` applies them): a URI the caller may not read is dropped from the acknowledgment — and, while
 * anything is hidden from the caller, so is a URI nothing serves, so that the two cannot be told apart — no
 * `notifications/resources/updated` is sent for a URI a hidden handler serves (a sub-resource of a followed URI
 * included), and a resync repeats only URIs the caller may still read.
 */
@Injectable()
export class McpSubscriptionsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpSubscriptions');
  private readonly open = new Set<() => void>();
  /** Rebuilds the visibility view of each open stream (resources or templates changed). */
  private readonly reviews = new Set<() => void>();
  private readonly quota: AdmissionQuota;
  private registryChanges?: Subscription;

  constructor(
    @Inject(MCP_EVENT_BUS) private readonly bus: McpEventBus,
    private readonly registry: McpRegistry,
    private readonly options: McpResolvedOptions,
    @Optional() @Inject(MCP_TASK_STORE) private readonly tasks?: McpTaskStore,
    @Optional() @Inject(MCP_LISTENER_VISIBILITY) private readonly visibility?: McpListenerVisibility,
  ) {
    this.quota = new AdmissionQuota({
      total: options.maxListenStreams,
      perPrincipal: options.maxListenStreamsPerPrincipal,
      perAddress: options.maxListenStreamsPerAddress,
    });
  }

  onModuleInit(): void {
    this.registryChanges = this.registry.changes$.subscribe((kind) => {
      // Before the list change goes out: a stream must not hear of a URI a new scoped resource now hides.
      if (kind === 'resources' || kind === 'resourceTemplates') for (const review of this.reviews) review();
      // A change another replica made and shared: that replica told every listener already, through the bus.
      if (!this.registry.replaying) void this.bus.publish(LIST_EVENTS[kind]);
    });
  }

  /** Ends every open stream with its closing result before the server goes down. */
  onModuleDestroy(): void {
    this.registryChanges?.unsubscribe();
    for (const end of [...this.open]) end();
  }

  /** Number of open listen streams (for diagnostics). */
  get openStreams(): number {
    return this.open.size;
  }

  async listen(scope: McpRequestScope, features: ListenFeatures): Promise<JsonObject> {
    const filter = parseSubscriptionFilter(scope.params, features, scope.meta.clientCapabilities);
    // Only the caller's own tasks are watched; unknown and foreign ids are dropped from the acknowledgment alike.
    if (filter.taskIds) filter.taskIds = await this.ownTasks(filter.taskIds, scope);
    if (filter.taskIds?.length === 0) delete filter.taskIds;
    // Built once per stream that follows URIs (and again when resources change); absent when nothing can be hidden
    // from this caller: then no URI is judged, per event or otherwise.
    let view = filter.resourceSubscriptions ? this.visibility?.viewFor(scope) : undefined;
    // URIs the caller may not read are dropped like foreign task ids: the acknowledgment must not confirm them.
    if (view && filter.resourceSubscriptions) {
      const followed = view;
      filter.resourceSubscriptions = filter.resourceSubscriptions.filter((uri) => followed.follows(uri));
      if (filter.resourceSubscriptions.length === 0) delete filter.resourceSubscriptions;
    }
    const admission = this.quota.tryAcquire({ principal: scope.principal, address: scope.remoteAddress });
    if ('refused' in admission) throw this.refusal(admission.refused);
    const subscriptionId = scope.id;
    const tag = { [MetaKeys.subscriptionId]: subscriptionId };
    // Read once, when the stream opens: the same object is shown to the hook for every event.
    const listener: McpListener = Object.freeze({ principal: scope.principal });
    const authorize = this.options.authorizeDelivery;
    scope.channel.notify({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: tag, notifications: filter },
    });

    return new Promise<JsonObject>((resolve) => {
      const tasks = this.watchTasks(filter, scope, tag);
      const unsubscribe = this.bus.subscribe((event) => {
        if (event.type === 'resync') {
          for (const { method, uri } of resyncNotifications(filter)) {
            // Only URIs the caller may still read: one that is now hidden, or now unknown, looks the same.
            if (uri !== undefined && view !== undefined && !view.follows(uri)) continue;
            scope.channel.notify({
              jsonrpc: '2.0',
              method,
              params: uri === undefined ? { _meta: tag } : { _meta: tag, uri },
            });
          }
          tasks.resync();
          return;
        }
        const method = notificationFor(filter, event);
        if (
          !method ||
          (event.type === 'resourceUpdated' && !hears(view, event.uri)) ||
          !mayDeliver(listener, event, authorize)
        )
          return;
        const params: JsonObject = { _meta: tag };
        if (event.type === 'resourceUpdated') params.uri = event.uri;
        scope.channel.notify({ jsonrpc: '2.0', method, params });
      });
      const review = () => {
        view = this.visibility?.viewFor(scope);
      };
      if (filter.resourceSubscriptions) this.reviews.add(review);
      const keepAlive = setInterval(() => scope.channel.keepAlive(), this.options.keepAliveMs);
      keepAlive.unref();
      const end = () => {
        this.open.delete(end);
        this.reviews.delete(review);
        admission.lease.release();
        clearInterval(keepAlive);
        unsubscribe();
        tasks.stop();
        scope.cancellation.signal.removeEventListener('abort', end);
        resolve({ _meta: tag });
      };
      this.open.add(end);
      // The client closing the stream ends the subscription; nothing more is written for it.
      if (scope.cancellation.signal.aborted) end();
      else scope.cancellation.signal.addEventListener('abort', end, { once: true });
    });
  }

  /**
   * The ids of `taskIds` that name live tasks of the caller on this wire, which it may read (`tasks/get`'s rules: the
   * scopes of the task's tool, the `visibility` hook); the others are dropped as unknown ones are.
   */
  private async ownTasks(taskIds: readonly string[], scope: McpRequestScope): Promise<string[]> {
    const store = this.tasks;
    if (!store) return [];
    const records = await Promise.all(taskIds.map((taskId) => store.get(taskId, scope.principal ?? null)));
    const visibility = this.visibility;
    return records
      .filter(
        (record): record is McpTaskRecord =>
          record?.wire === 'modern' && (!visibility || visibility.seesTask(scope, record)),
      )
      .map((record) => record.taskId);
  }

  /**
   * `notifications/tasks` for the acknowledged task ids: every committed change of one of them, as the full task
   * `tasks/get` would return at that moment, tagged with the subscription id; on a resync, the current state of each,
   * read from the store. Returns what resyncs and stops it.
   */
  private watchTasks(filter: SubscriptionFilter, scope: McpRequestScope, tag: JsonObject): TaskFeed {
    const store = this.tasks;
    if (!store || !filter.taskIds) return NO_TASKS;
    const watched = new Set(filter.taskIds);
    const owner = scope.principal ?? null;
    // The newest version told per task: a state read for a resync must not overtake a newer change told meanwhile.
    const told = new Map<string, number>();
    let stopped = false;
    const tell = (record: McpTaskRecord) => {
      if (stopped || !watched.has(record.taskId) || record.owner !== owner) return;
      if (record.version < (told.get(record.taskId) ?? 0)) return;
      told.set(record.taskId, record.version);
      scope.channel.notify({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { _meta: tag, ...detailedTask(record) },
      });
    };
    const unwatch = store.watch(tell);
    return {
      resync: () => {
        for (const taskId of watched) {
          Promise.resolve()
            .then(() => store.get(taskId, owner))
            .then((record) => record && tell(record))
            .catch((error: unknown) =>
              this.logger.warn(
                `Could not read task ${taskId} for a resync: ${(error as Error)?.message ?? String(error)}`,
              ),
            );
        }
      },
      stop: () => {
        stopped = true;
        unwatch();
      },
    };
  }

  /** The server is full (503), or this caller holds its share already (429); both say when to retry. */
  private refusal(refused: AdmissionRefusal): McpError {
    const data = { retryAfterSeconds: LISTEN_RETRY_AFTER_SECONDS };
    if (refused === 'total') {
      const limit = this.options.maxListenStreams;
      return new McpError(
        McpErrorCode.InternalError,
        `Too many open subscriptions on this server (maxListenStreams: ${limit}); retry later`,
        data,
        503,
      );
    }
    const [who, option, limit] =
      refused === 'principal'
        ? ['for this principal', 'maxListenStreamsPerPrincipal', this.options.maxListenStreamsPerPrincipal]
        : ['from this address', 'maxListenStreamsPerAddress', this.options.maxListenStreamsPerAddress];
    return new McpError(
      McpErrorCode.InternalError,
      `Too many open subscriptions ${who} (${option}: ${limit}); close one or retry later`,
      data,
      429,
    );
  }
}
