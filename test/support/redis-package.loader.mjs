/**
 * Adds the `nest-mcp-redis` package names to a TypeScript child process started with ts-child.loader.mjs, which maps
 * `nest-mcp` only: `node --import ./test/support/ts-child.loader.mjs --import ./test/support/redis-package.loader.mjs
 * apps/demo/src/main.ts`. Hooks registered later run first, so this one resolves the names and ts-child's load hook
 * compiles the files.
 */
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const ROOT = new URL('../../', import.meta.url);
const ALIASES = {
  'nest-mcp-redis': new URL('libs/mcp-redis/src/index.ts', ROOT).href,
  'nest-mcp-redis/health': new URL('libs/mcp-redis/src/health/index.ts', ROOT).href,
};

// Imported with --import, this file registers itself; Node then loads it again on the hooks thread.
if (isMainThread) register(import.meta.url);

/** Resolve hook: the package names of nest-mcp-redis, as tsconfig's `paths` map them. */
export async function resolve(specifier, context, nextResolve) {
  if (Object.hasOwn(ALIASES, specifier)) return { url: ALIASES[specifier], format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
