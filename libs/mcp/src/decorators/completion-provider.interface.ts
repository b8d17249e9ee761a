import type { McpCompletionResult } from '../protocol/mcp-wire.interface.js';

/** What a completion provider receives besides the partial value. */
export interface McpCompletionContext {
  /** Arguments (or template variables) the client already resolved. */
  arguments: Record<string, string>;
}

/**
 * Suggests values for a prompt argument or a URI template variable (`completion/complete`).
 * Either a function, or the name of a method on the same provider (so it can use injected services).
 * It may return plain strings (the library trims them to 100 and sets `total` / `hasMore`) or a full result.
 */
export type McpCompletionProvider =
  | ((value: string, context: McpCompletionContext) => McpCompletionReturn | Promise<McpCompletionReturn>)
  | string;

/** Value returned by a completion provider. */
export type McpCompletionReturn = string[] | McpCompletionResult;
