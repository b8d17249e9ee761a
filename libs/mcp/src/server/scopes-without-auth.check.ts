import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpExplorer } from '../discovery/mcp.explorer.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { AccessControlled } from '../discovery/registry-entries.interface.js';

/**
 * Warns once at bootstrap when handlers declare `@McpScopes` on an HTTP server without `auth`: no HTTP call can carry a
 * token then, so they are hidden from HTTP callers and refused with 403 (fail closed). Local callers (stdio, the
 * in-process testing kit) still reach them.
 */
@Injectable()
export class ScopesWithoutAuthCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpModule');

  constructor(
    private readonly options: McpResolvedOptions,
    private readonly registry: McpRegistry,
    private readonly adapterHost: HttpAdapterHost,
    // Depending on the explorer makes this hook run after discovery, when the registry holds the decorated handlers.
    _explorer: McpExplorer,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.auth !== undefined || this.adapterHost.httpAdapter === undefined) return;
    const registry = this.registry;
    const scoped = [
      registry.listTools(),
      registry.listPrompts(),
      registry.listResources(),
      registry.listResourceTemplates(),
    ]
      .flatMap((entries: readonly AccessControlled[]) => entries)
      .filter((entry) => entry.summary.scopes.length > 0)
      .map(({ summary }) => `${summary.kind} "${summary.uri ?? summary.name}"`);
    if (scoped.length === 0) return;
    const listed =
      scoped.length > 5 ? `${scoped.slice(0, 5).join(', ')} and ${scoped.length - 5} more` : scoped.join(', ');
    this.logger.warn(
      `${listed} require OAuth scopes (@McpScopes) but the "auth" option is not set: HTTP callers cannot present a token, ` +
        'so these handlers are hidden from them and refused with 403. Configure "auth", or remove @McpScopes.',
    );
  }
}
