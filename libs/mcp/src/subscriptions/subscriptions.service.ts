import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry, type McpListKind } from '../discovery/mcp.registry.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { MetaKeys } from '../protocol/meta-keys.constants.js';
import type { McpChangeEvent } from './mcp-event.interface.js';
import { MCP_EVENT_BUS, type McpEventBus } from './mcp-event-bus.interface.js';
import { notificationFor, parseSubscriptionFilter, type ListenFeatures } from './subscription-filter.js';

const LIST_EVENTS: Record<McpListKind, McpChangeEvent> = {
  tools: { type: 'toolsListChanged' },
  prompts: { type: 'promptsListChanged' },
  resources: { type: 'resourcesListChanged' },
  resourceTemplates: { type: 'resourcesListChanged' },
};

/**
 * `subscriptions/listen` (spec digest §9): acknowledges the honoured filter first, then forwards matching change
 * events from the event bus, each tagged with the subscription id, with keep-alive comments in between. The stream
 * lasts until the client closes it; on shutdown the server ends it with the closing result.
 * Runtime changes of the registry are published as list changes.
 */
@Injectable()
export class McpSubscriptionsService implements OnModuleInit, OnModuleDestroy {
  private readonly open = new Set<() => void>();
  private registryChanges?: Subscription;

  constructor(
    @Inject(MCP_EVENT_BUS) private readonly bus: McpEventBus,
    private readonly registry: McpRegistry,
    private readonly options: McpResolvedOptions,
  ) {}

  onModuleInit(): void {
    this.registryChanges = this.registry.changes$.subscribe((kind) => void this.bus.publish(LIST_EVENTS[kind]));
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

  listen(scope: McpRequestScope, features: ListenFeatures): Promise<JsonObject> {
    const filter = parseSubscriptionFilter(scope.params, features, scope.meta.clientCapabilities);
    if (this.open.size >= this.options.maxListenStreams) {
      throw new McpError(-32603, 'Too many open subscriptions; retry later', undefined, 503);
    }
    const subscriptionId = scope.id;
    const tag = { [MetaKeys.subscriptionId]: subscriptionId };
    scope.channel.notify({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: tag, notifications: filter },
    });

    return new Promise<JsonObject>((resolve) => {
      const unsubscribe = this.bus.subscribe((event) => {
        const method = notificationFor(filter, event);
        if (!method) return;
        const params: JsonObject = { _meta: tag };
        if (event.type === 'resourceUpdated') params.uri = event.uri;
        scope.channel.notify({ jsonrpc: '2.0', method, params });
      });
      const keepAlive = setInterval(() => scope.channel.keepAlive(), this.options.keepAliveMs);
      keepAlive.unref();
      const end = () => {
        this.open.delete(end);
        clearInterval(keepAlive);
        unsubscribe();
        scope.cancellation.signal.removeEventListener('abort', end);
        resolve({ _meta: tag });
      };
      this.open.add(end);
      // The client closing the stream ends the subscription; nothing more is written for it.
      scope.cancellation.signal.addEventListener('abort', end, { once: true });
    });
  }
}
