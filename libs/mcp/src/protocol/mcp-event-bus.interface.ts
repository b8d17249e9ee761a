import type { McpChangeEvent } from './mcp-event.interface.js';

/**
 * Carries change events to every listen stream of every replica. The default is in-process; a Redis (or any
 * pub/sub) implementation makes `McpPublisher` calls on one replica reach listeners on all of them.
 *
 * Provide your own with `{ provide: MCP_EVENT_BUS, useClass: MyBus }` in the module that imports `McpModule`… or
 * through the `eventBus` option.
 */
export interface McpEventBus {
  /**
   * For a backend kept per named server (`McpRedis.serverOptions(options, { server })`): the server it belongs to,
   * `undefined` for one that is not a named server's. `McpModule` refuses to start a server given another server's
   * (docs/servers.md). Omit it for a backend of one server.
   */
  readonly server?: string;
  /**
   * `true` when this bus links several replicas (Redis pub/sub…). `McpModule` then refuses to start without
   * `requestState.keys`: a per-process random key would break every round whose retry reaches another replica.
   */
  readonly sharedAcrossReplicas?: boolean;
  /** Sends an event to all subscribers (on every replica). */
  publish(event: McpChangeEvent): void | Promise<void>;
  /** Receives every published event; returns a function that stops receiving. */
  subscribe(listener: (event: McpChangeEvent) => void): () => void;
}

/** Injection token of the event bus. */
export const MCP_EVENT_BUS = Symbol('nest-mcp:event-bus');
