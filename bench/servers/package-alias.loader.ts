import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

/**
 * Module hooks for the built bench (dist/bench): resolves the `nest-mcp` package names (`nest-mcp`, `nest-mcp/backend`)
 * to the library built beside the bench. tsc keeps bare specifiers as they are, and nest-mcp-redis imports nest-mcp by its package name (never by
 * path), so without this hook Node would look for a `nest-mcp` package in node_modules. Mapping the name to the very
 * file the bench servers import by relative path keeps one module instance (one `McpModule`, one set of DI tokens).
 *
 * Used as `node --import <this file> server.js` (see harness/redis-cluster.ts).
 */

const ALIASES: Record<string, string> = {
  'nest-mcp': new URL('../../libs/mcp/src/index.js', import.meta.url).href,
  'nest-mcp/backend': new URL('../../libs/mcp/src/backend/index.js', import.meta.url).href,
};

// Imported with --import, this file registers itself; Node then loads it again on the hooks thread.
if (isMainThread) register(import.meta.url);

interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string; format?: string }>;

/** The resolve hook: the aliases, then Node's own resolution. */
export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: NextResolve,
): Promise<{ url: string; format?: string; shortCircuit?: boolean }> {
  const alias = ALIASES[specifier];
  if (alias !== undefined) return { url: alias, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
