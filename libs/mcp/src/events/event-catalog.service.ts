import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { MCP_EVENT_BUS, type McpEventBus } from '../protocol/mcp-event-bus.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpAccessPolicy } from '../server/access.policy.js';
import { ListPager } from '../server/list-pager.js';
import type { McpEventTypeEntry } from './event-type.js';
import { McpEventTypes } from './event-types.registry.js';

/**
 * `events/list` (SEP-3415, "Listing Available Events"): the descriptors of the event types the caller may see, in
 * registration order, a page at a time (`cursor` / `nextCursor`, a cursor of another list is `-32602`). Filtered per
 * caller exactly as `tools/list` (`@McpScopes`, the `visibility` hook): a hidden type is absent, as if unknown. No
 * `ttlMs` / `cacheScope`: the result is not one of the core's cacheable ones.
 *
 * A change of the catalog after bootstrap is published on the event bus, so listen streams that asked for
 * `eventsListChanged` get `notifications/events/list_changed` (SEP-3415, "Dynamic event types").
 */
@Injectable()
export class EventCatalogService implements OnModuleInit, OnModuleDestroy {
  private readonly pager: ListPager<McpEventTypeEntry>;
  private changes?: Subscription;

  constructor(
    private readonly types: McpEventTypes,
    private readonly access: McpAccessPolicy,
    @Inject(MCP_EVENT_BUS) private readonly bus: McpEventBus,
    options: McpResolvedOptions,
  ) {
    this.pager = new ListPager(
      'events',
      'events',
      () => options.pageSize,
      (entry) => entry.definition,
    );
  }

  onModuleInit(): void {
    // A change another replica made (`replayed`) was published by that replica already.
    this.changes = this.types.changes$.subscribe(({ replayed }) => {
      if (!replayed) void this.bus.publish({ type: 'eventsListChanged' });
    });
  }

  onModuleDestroy(): void {
    this.changes?.unsubscribe();
  }

  /** With a shared registry state, once this replica applied every change committed before the call. */
  async list(scope: McpRequestScope): Promise<JsonObject> {
    await this.types.catchUp();
    const entries = this.types.list();
    const mode = this.access.listMode(entries);
    // Everyone sees every type: the pages are kept until the catalog changes.
    if (mode === 'shared' || mode === 'private') return this.pager.page(entries, scope.params.cursor);
    const caller = this.access.callerOf(scope);
    return this.pager.pageOnce(
      entries.filter((entry) => this.access.isVisible(entry.summary, caller)),
      scope.params.cursor,
    );
  }
}
