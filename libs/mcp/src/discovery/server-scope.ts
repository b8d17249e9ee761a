import { Inject, Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { MCP_MODULE_OPTIONS_EXTRAS } from '../config/mcp-extras.constants.js';
import type { McpModuleExtras } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';

/**
 * Which handlers one server serves: with `include`, only those of providers and controllers declared in the listed
 * modules (a module's own providers, not those of its imports — as `@nestjs/graphql`'s `include`); without it, every
 * decorated handler of the application, as a single server always did.
 *
 * Checked at startup: each included module must be imported somewhere in the application, and no two servers of the
 * application may share a path or a name.
 */
@Injectable()
export class McpServerScope implements OnModuleInit {
  private readonly included?: ReadonlySet<Type>;

  constructor(
    @Inject(MCP_MODULE_OPTIONS_EXTRAS) private readonly extras: McpModuleExtras,
    private readonly options: McpResolvedOptions,
    private readonly modules: ModulesContainer,
  ) {
    if (extras.include !== undefined) {
      if (!Array.isArray(extras.include) || extras.include.some((module) => typeof module !== 'function')) {
        throw new Error(`McpModule "${options.serverInfo.name}": "include" must be a list of module classes`);
      }
      this.included = new Set(extras.include);
    }
  }

  /** Whether the handlers of `wrapper` (a provider or controller) belong to this server. */
  serves(wrapper: InstanceWrapper): boolean {
    if (!this.included) return true;
    const host = wrapper.host?.metatype as Type | undefined;
    return host !== undefined && this.included.has(host);
  }

  onModuleInit(): void {
    const name = this.options.serverInfo.name;
    const imported = new Set([...this.modules.values()].map((module) => module.metatype));
    for (const module of this.included ?? []) {
      if (!imported.has(module)) {
        throw new Error(
          `McpModule "${name}": include names ${module.name}, which the application does not import: import it (in AppModule or a module AppModule imports) or remove it from "include"`,
        );
      }
    }
    const servers = [...this.modules.values()]
      .map((module) => ({
        extras: module.providers.get(MCP_MODULE_OPTIONS_EXTRAS)?.instance as McpModuleExtras | undefined,
        options: module.providers.get(McpResolvedOptions)?.instance as McpResolvedOptions | undefined,
      }))
      .filter(
        (server): server is { extras: McpModuleExtras; options: McpResolvedOptions } =>
          server.extras !== undefined && server.options !== undefined,
      );
    const samePath = servers.filter(
      (server) => server.extras !== this.extras && server.extras.path === this.extras.path,
    );
    if (samePath.length > 0) {
      throw new Error(
        `McpModule: the servers "${name}" and "${samePath[0].options.serverInfo.name}" both serve ${this.extras.path}: give each McpModule.forRoot its own path`,
      );
    }
    const sameName = servers.filter(
      (server) => server.extras !== this.extras && server.options.serverInfo.name === name,
    );
    if (sameName.length > 0) {
      throw new Error(
        `McpModule: two servers are named "${name}" (at ${this.extras.path} and ${sameName[0].extras.path}): give each its own name`,
      );
    }
  }
}
