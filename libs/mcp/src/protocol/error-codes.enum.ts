/**
 * JSON-RPC error codes used by MCP 2026-07-28 (spec 2026-07-28: basic/index, "Error Codes"). Only these are emitted by
 * the library; application-defined codes belong outside `-32768..-32000`.
 */
export enum McpErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  HeaderMismatch = -32020,
  MissingRequiredClientCapability = -32021,
  UnsupportedProtocolVersion = -32022,
}
