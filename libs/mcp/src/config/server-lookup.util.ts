import type { INestApplicationContext } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { MCP_MODULE_OPTIONS_EXTRAS } from './mcp-extras.constants.js';
import { McpResolvedOptions } from './resolved-options.js';

/**
 * The names of the MCP servers of an application, so that a caller that names none (the testing kit, stdio) can
 * refuse to guess when there are several (docs/servers.md). Empty when the context cannot tell.
 * @internal
 */
export function mcpServerNames(app: INestApplicationContext): string[] {
  let modules: ModulesContainer;
  try {
    modules = app.get(ModulesContainer, { strict: false });
  } catch {
    return [];
  }
  return [...modules.values()]
    .filter((module) => module.providers.has(MCP_MODULE_OPTIONS_EXTRAS))
    .map(
      (module) =>
        (module.providers.get(McpResolvedOptions)?.instance as McpResolvedOptions | undefined)?.serverInfo.name ?? '?',
    );
}

/** Throws when `server` is not given and the application has several servers: which one is meant is not known. */
export function requireServerChoice(app: INestApplicationContext, server: string | undefined, who: string): void {
  if (server !== undefined) return;
  const names = mcpServerNames(app);
  if (names.length > 1) {
    throw new Error(
      `${who}: the application has ${names.length} MCP servers (${names.map((name) => `"${name}"`).join(', ')}): pass { server: '<name>' }`,
    );
  }
}
