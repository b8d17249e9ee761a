/** Reserved `_meta` keys of MCP 2026-07-28 (spec 2026-07-28: basic/index, "`_meta`"). */
export const MetaKeys = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  progressToken: 'progressToken',
} as const;

/**
 * The HTTP headers that mirror body fields (spec 2026-07-28: basic/transports/streamable-http, "Request Metadata").
 * Lower-case, as Node exposes them.
 */
export const McpHeaders = {
  protocolVersion: 'mcp-protocol-version',
  method: 'mcp-method',
  name: 'mcp-name',
  paramPrefix: 'mcp-param-',
  sessionId: 'mcp-session-id',
} as const;
