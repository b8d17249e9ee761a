/** Where the captured raw body (or the reason there is none) is kept on the Node request. */
export const MCP_RAW_BODY = Symbol('nest-mcp:raw-body');
