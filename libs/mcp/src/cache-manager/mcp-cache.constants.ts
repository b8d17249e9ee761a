/** Metadata of `@McpCacheScope`, on a method or a class. */
export const MCP_CACHE_SCOPE_METADATA = 'nest-mcp:cache-scope';

/** The first part of every key `McpCacheInterceptor` writes, so that its entries are told apart in a shared store. */
export const MCP_CACHE_KEY_PREFIX = 'nest-mcp:cache';
