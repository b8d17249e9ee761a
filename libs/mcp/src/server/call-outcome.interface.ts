import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpError } from '../protocol/mcp.error.js';

/**
 * What running a request produced, before any wire shaped it: the handler's raw result (no `resultType` or
 * `serverInfo` yet) or the error to answer with.
 */
export type CallOutcome = { ok: true; result: JsonObject } | { ok: false; error: McpError };
