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

/** A change that listen streams may be told about. Plain JSON: it travels through the event bus. */
export type McpChangeEvent =
  | (McpChangeEventBase & { type: 'toolsListChanged' })
  | (McpChangeEventBase & { type: 'promptsListChanged' })
  | (McpChangeEventBase & { type: 'resourcesListChanged' })
  | (McpChangeEventBase & { type: 'resourceUpdated'; uri: string });
