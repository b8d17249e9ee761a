/** Where the captured raw body (or the reason there is none) is kept on the Node request. */
export const MCP_RAW_BODY = Symbol('nest-mcp:raw-body');

/**
 * Metadata on the endpoint's POST handler, holding the endpoint's path. Nest copies a controller method's metadata
 * to the handler it registers with the router, so the body capture finds the route by it (an Express route layer, a
 * Fastify route) and never has to re-derive which URLs reach the endpoint.
 */
export const MCP_CAPTURED_ROUTE = 'nest-mcp:captured-route';

/**
 * The key of the route options Nest's Fastify adapter passes to Fastify as `config` (what `@RouteConfig()` sets).
 * The endpoint's marker travels there too: Fastify's `onRoute` sees `config` even when the adapter wraps the handler
 * (a path with parameters), where the handler's own metadata is lost.
 */
export const FASTIFY_ROUTE_CONFIG_METADATA = '__fastify_route_config__';

/**
 * After an early 413, the rest of the upload is read and discarded (nginx's lingering close), so that the client,
 * still writing, reads the answer instead of a reset connection; at most this many times `maxBodyBytes` more…
 */
export const DISCARD_LIMIT_FACTOR = 4;

/** …and never more than 64 MiB… */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024;

/** …nor for longer than 5 seconds after the answer. Past either bound the connection is closed. */
export const DISCARD_MAX_MS = 5_000;
