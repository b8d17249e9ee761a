import { Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRoute } from '../server/mcp-route.interface.js';
import type { McpExtension } from '../server/extension.interface.js';
import { EventCatalogService } from './event-catalog.service.js';
import { EventPollService } from './event-poll.service.js';
import { EventStreamService } from './event-stream.service.js';
import { McpEventTypes } from './event-types.registry.js';
import { WebhookSubscriptionsService } from './webhooks/webhook-subscriptions.service.js';
import { EVENTS_EXTENSION } from './events.constants.js';
import { TOP_LEVEL_CAPABILITY } from './events-profile.constants.js';

/**
 * The one place the events extension plugs into the server (docs/events.md): its methods in the dispatcher's route
 * table and what `server/discover` advertises. Everything else lives in the services it names.
 *
 * - Routes exist while the extension is advertised (an event type is registered; `-32601` otherwise), on the
 *   2026-07-28 wire only: SEP-3415 defines nothing before it, so it has no `legacy` face and a 2025-11-25 request
 *   gets `-32601` too. None
 *   requires the client to declare the extension (SEP-3415: the declaration is optional, and deployed clients omit it).
 * - `events/stream` is a stream (`delivery: 'stream'`: SSE, no call timeout, its own cap), ended by a disconnect.
 * - Advertised: `extensions["io.modelcontextprotocol/events"] = { listChanged: true }`, and the top-level
 *   `events: {}` deployed clients read (`events.topLevelCapability`).
 */
@Injectable()
export class McpEventsExtension implements McpExtension {
  readonly id = EVENTS_EXTENSION;

  constructor(
    private readonly types: McpEventTypes,
    private readonly catalog: EventCatalogService,
    private readonly polls: EventPollService,
    private readonly streams: EventStreamService,
    private readonly webhooks: WebhookSubscriptionsService,
    private readonly options: McpResolvedOptions,
  ) {}

  routes(): Iterable<readonly [string, McpRoute]> {
    const route = (handle: McpRoute['handle'], delivery: McpRoute['delivery'] = 'response'): McpRoute => ({
      extension: EVENTS_EXTENSION,
      handle,
      delivery,
      cancellableByDisconnect: true,
    });
    return [
      ['events/list', route((scope) => this.catalog.list(scope))],
      ['events/poll', route((scope) => this.polls.poll(scope))],
      ['events/stream', route((scope) => this.streams.stream(scope), 'stream')],
      ['events/subscribe', route((scope) => this.webhooks.subscribe(scope))],
      ['events/unsubscribe', route((scope) => this.webhooks.unsubscribe(scope))],
    ];
  }

  advertise(): JsonObject | undefined {
    return this.types.advertised ? { listChanged: true } : undefined;
  }

  capabilities(): Readonly<Record<string, JsonObject>> {
    return this.types.advertised && this.options.events.topLevelCapability ? { [TOP_LEVEL_CAPABILITY]: {} } : {};
  }

  revision(): number {
    return this.types.revision;
  }
}
