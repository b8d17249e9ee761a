import type { McpClientCapabilities, McpImplementation, McpLogLevel } from './mcp-wire.interface.js';

/** The per-request protocol fields of a 2026-07-28 request, read from `params._meta`. */
export interface McpRequestMeta {
  /** `io.modelcontextprotocol/protocolVersion` */
  protocolVersion: string;
  /** `io.modelcontextprotocol/clientCapabilities`: what this request (and only this one) can answer. */
  clientCapabilities: McpClientCapabilities;
  /** `io.modelcontextprotocol/clientInfo`: for display and logs only, never for security. */
  clientInfo?: McpImplementation;
  /** `io.modelcontextprotocol/logLevel`: opt-in to `notifications/message` for this request. */
  logLevel?: McpLogLevel;
  /** `progressToken`: opt-in to `notifications/progress` for this request. */
  progressToken?: string | number;
  /** The whole `_meta` object, as sent. */
  raw: Record<string, unknown>;
}
