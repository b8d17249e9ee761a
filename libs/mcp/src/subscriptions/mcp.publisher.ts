import { Inject, Injectable } from '@nestjs/common';
import type { McpEventAudience, McpNotifiedChange } from '../protocol/mcp-event.interface.js';
import { MCP_EVENT_BUS, type McpEventBus } from '../protocol/mcp-event-bus.interface.js';
import { isResourceUri } from '../protocol/uri.util.js';

/** Options of one published change. */
export interface McpPublishOptions {
  /**
   * Only listeners whose principal is listed receive the event (anonymous listeners never do). Without it, every
   * listener subscribed to the change receives it — so give one whenever the URI or list is not meant for everyone.
   */
  audience?: McpEventAudience;
}

/**
 * Tells listening clients that something changed (`subscriptions/listen`, and 2025-11-25 session streams). Inject
 * it anywhere. Registry changes at run time publish list changes by themselves (to everyone).
 *
 * @example
 * ```ts
 * constructor(private readonly publisher: McpPublisher) {}
 * async save(user: string, profile: Profile) {
 *   await this.store.save(user, profile);
 *   await this.publisher.resourceUpdated(`users:${user}/profile`, { audience: { principals: [user] } });
 * }
 * ```
 */
@Injectable()
export class McpPublisher {
  constructor(@Inject(MCP_EVENT_BUS) private readonly bus: McpEventBus) {}

  /** The list of tools changed. */
  async toolsListChanged(options?: McpPublishOptions): Promise<void> {
    await this.bus.publish(addressed({ type: 'toolsListChanged' }, options));
  }

  /** The list of prompts changed. */
  async promptsListChanged(options?: McpPublishOptions): Promise<void> {
    await this.bus.publish(addressed({ type: 'promptsListChanged' }, options));
  }

  /** The list of resources (or resource templates) changed. */
  async resourcesListChanged(options?: McpPublishOptions): Promise<void> {
    await this.bus.publish(addressed({ type: 'resourcesListChanged' }, options));
  }

  /**
   * The contents of a resource changed; clients subscribed to it (or to a parent URI) are told. `uri` must be a URI
   * `resources/read` could serve (`isResourceUri`: at most 8,192 characters, printable ASCII, percent-encode the
   * rest); anything else throws a `TypeError`.
   */
  async resourceUpdated(uri: string, options?: McpPublishOptions): Promise<void> {
    if (!isResourceUri(uri)) {
      throw new TypeError(
        'resourceUpdated needs a resource URI: a scheme, then at most 8192 printable ASCII characters (percent-encode the rest)',
      );
    }
    await this.bus.publish(addressed({ type: 'resourceUpdated', uri }, options));
  }
}

/**
 * The event with a copy of its audience (plain JSON, detached from the caller's array), checked. Never a `resync`:
 * that is the event bus's own signal, not something an application publishes.
 */
function addressed(event: McpNotifiedChange, options: McpPublishOptions | undefined): McpNotifiedChange {
  const audience = options?.audience;
  if (audience === undefined) return event;
  const principals: unknown = audience?.principals;
  if (!Array.isArray(principals) || !principals.every((principal) => typeof principal === 'string')) {
    throw new TypeError('McpPublisher: audience.principals must be an array of principal strings');
  }
  return { ...event, audience: { principals: [...principals] } };
}
