import { Inject, Injectable } from '@nestjs/common';
import { MCP_EVENT_BUS, type McpEventBus } from './mcp-event-bus.interface.js';

/**
 * Tells listening clients that something changed (`subscriptions/listen`). Inject it anywhere.
 * Registry changes at run time publish list changes by themselves.
 *
 * @example
 * ```ts
 * constructor(private readonly publisher: McpPublisher) {}
 * async save(config: Config) { await this.store.save(config); await this.publisher.resourceUpdated('config://app'); }
 * ```
 */
@Injectable()
export class McpPublisher {
  constructor(@Inject(MCP_EVENT_BUS) private readonly bus: McpEventBus) {}

  /** The list of tools changed. */
  async toolsListChanged(): Promise<void> {
    await this.bus.publish({ type: 'toolsListChanged' });
  }

  /** The list of prompts changed. */
  async promptsListChanged(): Promise<void> {
    await this.bus.publish({ type: 'promptsListChanged' });
  }

  /** The list of resources (or resource templates) changed. */
  async resourcesListChanged(): Promise<void> {
    await this.bus.publish({ type: 'resourcesListChanged' });
  }

  /** The contents of a resource changed; clients subscribed to it (or to a parent URI) are told. */
  async resourceUpdated(uri: string): Promise<void> {
    if (typeof uri !== 'string' || uri.length === 0) throw new TypeError('resourceUpdated needs a URI');
    await this.bus.publish({ type: 'resourceUpdated', uri });
  }
}
