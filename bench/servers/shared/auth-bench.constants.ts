/**
 * The resource (audience) of the `auth` workload's tokens. The server is told it instead of its own URL: the port is
 * chosen at start, and the cost measured (the bearer check and JWT verification) does not depend on which URI it is.
 */
export const AUTH_BENCH_RESOURCE = 'http://127.0.0.1/mcp';
