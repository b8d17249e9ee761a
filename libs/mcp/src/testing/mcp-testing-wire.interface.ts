import type { McpCacheScope } from '../protocol/mcp-wire.interface.js';

/** The result of `server/discover`. */
export interface McpDiscoverResult {
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
  instructions?: string;
  ttlMs?: number;
  cacheScope?: McpCacheScope;
  _meta?: Record<string, unknown>;
}

/** What `complete` completes: a prompt argument, or a variable of a resource template. */
export type McpCompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
