import { SetMetadata } from '@nestjs/common';
import { MCP_CACHE_SCOPE_METADATA } from './mcp-cache.constants.js';

/**
 * Who may share a cached result of an MCP handler (`McpCacheInterceptor`): `'private'` (the default) keeps one entry
 * per caller (`McpExecutionContext.getCallerKey()`); `'public'` shares one entry between every caller — declare it only
 * for results that depend on the arguments alone. A resource read served from a `'public'` entry keeps the configured
 * `cacheScope` hint; a `'private'` one is always answered with `cacheScope: "private"`.
 *
 * @example `@McpCacheScope('public') @McpResource({ uri: 'catalog://skus', name: 'skus' })`
 */
export const McpCacheScope = (scope: 'private' | 'public'): MethodDecorator & ClassDecorator => {
  if (scope !== 'private' && scope !== 'public')
    throw new TypeError(`@McpCacheScope takes 'private' or 'public', got ${String(scope)}`);
  return SetMetadata(MCP_CACHE_SCOPE_METADATA, scope);
};
