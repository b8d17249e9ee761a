/**
 * TypeDoc plugin (typedoc.json `plugin`): names each documented module by the import path a user writes
 * (`nest-mcp`, `nest-mcp/testing`, …) instead of the folder TypeDoc derives (`mcp/src`, `mcp/src/testing`, …), which
 * the library's sources cannot change without a `@module` tag in every entry file. A module that is not listed here
 * stops the run: a new entry point must be given its import path.
 */
import { Converter, ReflectionKind } from 'typedoc';

/** Folder names TypeDoc derives from the entry points (relative to their common folder, libs/) → import paths. */
const IMPORT_PATHS = {
  'mcp/src': 'nest-mcp',
  'mcp/src/testing': 'nest-mcp/testing',
  'mcp/src/cache-manager': 'nest-mcp/cache-manager',
  'mcp/src/backend': 'nest-mcp/backend',
  'mcp/src/progress': 'nest-mcp/progress',
  'mcp-redis/src': 'nest-mcp-redis',
  'mcp-redis/src/health': 'nest-mcp-redis/health',
};

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const name = IMPORT_PATHS[module.name];
      if (!name)
        throw new Error(`typedoc: no import path for the module "${module.name}" (scripts/typedoc-package-names.mjs)`);
      module.name = name;
    }
  });
}
