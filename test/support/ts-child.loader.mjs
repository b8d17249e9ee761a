/**
 * Runs a TypeScript fixture in a child process without a build step: `node --import ./test/support/ts-child.loader.mjs
 * test/fixtures/x.fixture.ts`. Registers module hooks that compile `.ts` files with SWC (already used by vitest,
 * same decorator settings: legacy decorators with `design:*` metadata, which Nest's DI reads), map the `.js`
 * specifiers of the sources to their `.ts` files, and resolve the `nest-mcp` and `nest-mcp-redis` aliases as tsconfig's `paths` do.
 * Faster than the tsc build of `stdio-fixture.build.ts` (no type-check, no output on disk), for a fixture that only
 * needs to start quickly.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { register } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { transform } from '@swc/core';

const ROOT = new URL('../../', import.meta.url);
const ALIASES = {
  'nest-mcp': new URL('libs/mcp/src/index.ts', ROOT).href,
  'nest-mcp/testing': new URL('libs/mcp/src/testing/index.ts', ROOT).href,
  'nest-mcp/cache-manager': new URL('libs/mcp/src/cache-manager/index.ts', ROOT).href,
  'nest-mcp/backend': new URL('libs/mcp/src/backend/index.ts', ROOT).href,
  'nest-mcp/progress': new URL('libs/mcp/src/progress/index.ts', ROOT).href,
  'nest-mcp-redis': new URL('libs/mcp-redis/src/index.ts', ROOT).href,
  'nest-mcp-redis/health': new URL('libs/mcp-redis/src/health/index.ts', ROOT).href,
};

// Imported with --import, this file registers itself; Node then loads it again on the hooks thread.
if (isMainThread) register(import.meta.url);

/** Resolve hook: the alias, and `./x.js` → `./x.ts` from a TypeScript file when only the `.ts` exists. */
export async function resolve(specifier, context, nextResolve) {
  if (Object.hasOwn(ALIASES, specifier)) return { url: ALIASES[specifier], format: 'module', shortCircuit: true };
  const fromTs = context.parentURL?.startsWith('file:') && context.parentURL.endsWith('.ts');
  if (fromTs && specifier.endsWith('.js') && (specifier.startsWith('./') || specifier.startsWith('../'))) {
    const candidate = new URL(specifier, context.parentURL);
    const tsFile = fileURLToPath(candidate).replace(/\.js$/, '.ts');
    if (!existsSync(fileURLToPath(candidate)) && existsSync(tsFile)) {
      return { url: pathToFileURL(tsFile).href, format: 'module', shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
}

/** Load hook: `.ts` files compiled to ES modules. */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const filename = fileURLToPath(url);
  const { code } = await transform(await readFile(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    module: { type: 'es6' },
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
    },
  });
  return { format: 'module', source: code, shortCircuit: true };
}
