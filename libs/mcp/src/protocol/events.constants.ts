/**
 * The id of the MCP Events extension (SEP-3415, `io.modelcontextprotocol/events`; docs/events.md): the key a server
 * advertises in `capabilities.extensions` of `server/discover`. Lower layers need it to honour `eventsListChanged` on
 * listen streams; everything else about events lives in `events/`.
 */
export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';

/** The notification a listen stream that asked for `eventsListChanged` gets when the event catalog changes. */
export const EVENTS_LIST_CHANGED = 'notifications/events/list_changed';
