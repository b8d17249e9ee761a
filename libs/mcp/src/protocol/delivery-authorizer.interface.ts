import type { McpChangeEvent } from './mcp-event.interface.js';

/** The listener a change event is about to reach, as the `authorizeDelivery` hook sees it. */
export interface McpListener {
  /** The listener's principal (the module's `principal` option, read when the stream opened); none when anonymous. */
  readonly principal?: string;
}

/**
 * Decides whether one change event may reach one listener (module option `authorizeDelivery`). Called for every
 * event a listener subscribed to, after the event's audience admitted it, so it runs once per event × listener:
 * it must answer synchronously and cheaply (look up a cache, not a database). Only `true` delivers; `false`, any
 * other value (a Promise included) or a throw refuses.
 *
 * @example
 * ```ts
 * authorizeDelivery: (listener, event) => event.type !== 'resourceUpdated' || event.uri.startsWith(`users:${listener.principal}/`)
 * ```
 */
export type McpDeliveryAuthorizer = (listener: McpListener, event: McpChangeEvent) => boolean;
