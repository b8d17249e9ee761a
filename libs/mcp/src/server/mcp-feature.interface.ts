import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';

/** A method handler of a feature service: the result without `resultType` and `serverInfo` (the dispatcher adds them). */
export type McpMethodHandler = (scope: McpRequestScope) => Promise<JsonObject> | JsonObject;
