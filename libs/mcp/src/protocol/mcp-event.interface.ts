/**
 * Who may receive a change event. Plain JSON, so that any event bus (Redis pub/sub, …) can carry it: the principals
 * are the values the module's `principal` option returns. An empty list reaches nobody.
 *
 * @example `publisher.resourceUpdated('users:alice/profile', { audience: { principals: ['alice'] } })`
 */
export interface McpEventAudience {
  readonly principals: readonly string[];
}

/** What every change event may carry besides its type. */
interface McpChangeEventBase {
  /** When present, only listeners whose principal is listed receive the event; when absent, every subscriber does. */
  readonly audience?: McpEventAudience;
}

/**
 * A change that listen streams may be told about. Plain JSON: it travels through the event bus.
 *
 * `resync` is an event bus's own signal, not a change an application publishes (`McpPublisher` has no method for
 * it): events may have been missed — the bus reconnected after an outage — so every listener treats everything it
 * watches as changed. A listen stream is sent `list_changed` for each list it opted into, `resources/updated` for
 * each URI it subscribed to and the current state of each task it watches; a 2025-11-25 session likewise. It carries
 * no audience and reaches every listener without asking `authorizeDelivery`: it says nothing about any resource, and
 * each listener is only told again about what it already follows.
 */
export type McpChangeEvent =
  | (McpChangeEventBase & { type: 'toolsListChanged' })
  | (McpChangeEventBase & { type: 'promptsListChanged' })
  | (McpChangeEventBase & { type: 'resourcesListChanged' })
  /** The catalog of the events extension changed (`notifications/events/list_changed`; 2026-07-28 listen streams only). */
  | (McpChangeEventBase & { type: 'eventsListChanged' })
  | (McpChangeEventBase & { type: 'resourceUpdated'; uri: string })
  | { type: 'resync'; readonly audience?: undefined };

/** A change that becomes one notification: every change event but the bus's own `resync`. */
export type McpNotifiedChange = Exclude<McpChangeEvent, { type: 'resync' }>;
