import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpExplorer } from '../discovery/mcp.explorer.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { principalBindingWarning } from '../mrtr/principal-binding.warning.js';

/**
 * Warns once at bootstrap when `requestState`s and sessions are not bound to a caller (no `principal` option on an
 * HTTP endpoint that has handlers or sessions).
 */
@Injectable()
export class PrincipalBindingCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpModule');

  constructor(
    private readonly options: McpResolvedOptions,
    private readonly registry: McpRegistry,
    private readonly adapterHost: HttpAdapterHost,
    // Nest runs `onApplicationBootstrap` in order of dependency depth: depending on the explorer makes this hook run
    // after discovery, when the registry holds the decorated handlers.
    _explorer: McpExplorer,
  ) {}

  onApplicationBootstrap(): void {
    const registry = this.registry;
    const warning = principalBindingWarning({
      hasPrincipal: this.options.principal !== undefined || this.options.auth !== undefined,
      servesHttp: this.adapterHost.httpAdapter !== undefined,
      legacyWire: this.options.legacyWire,
      hasHandlers:
        registry.listTools().length +
          registry.listPrompts().length +
          registry.listResources().length +
          registry.listResourceTemplates().length >
        0,
    });
    if (warning) this.logger.warn(warning);
  }
}
