/*
 * nest-mcp/cache-manager: `@nestjs/cache-manager` on MCP calls (issue #30). Needs `@nestjs/cache-manager` and
 * `cache-manager` (optional peer dependencies of nest-mcp).
 */
export { McpCacheInterceptor } from './mcp-cache.interceptor.js';
export { McpCacheScope } from './mcp-cache-scope.decorator.js';
export { MCP_CACHE_KEY_PREFIX } from './mcp-cache.constants.js';
