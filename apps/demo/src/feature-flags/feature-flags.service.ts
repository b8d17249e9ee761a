import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectMcpRegistry, McpRegistry } from 'nest-mcp';
import { OPS_CONSOLE_SERVER } from '../console-servers.constants.js';
import { ServiceCatalog } from '../services/index.js';
import { ESTIMATE_COSTS_HANDLER, ESTIMATE_COSTS_TOOL, estimateCosts } from './cost-estimate.tool.js';
import { FeatureFlag } from './feature-flag.enum.js';

// #region docs:feature-flags
/**
 * The console's feature flags. Switching `cost-insights` adds or removes the `estimate_costs` tool at run time:
 * `McpRegistry` publishes the change, so clients listening with `toolsListChanged` are told to list tools again.
 * The flag is the registry's state: on a cluster (nest-mcp-redis) it is shared, so every replica lists the tool
 * once one switched it on, and the handler travels by its name, which every replica provides. The switch is an
 * admin tool (`/admin/mcp`); the tool it adds is for everyone, so the registry is the `/mcp` server's, by its name.
 */
@Injectable()
export class FeatureFlags implements OnModuleInit {
  constructor(
    @InjectMcpRegistry(OPS_CONSOLE_SERVER) private readonly registry: McpRegistry,
    private readonly catalog: ServiceCatalog,
  ) {}

  onModuleInit(): void {
    this.registry.provideHandler<{ name?: string }>(ESTIMATE_COSTS_HANDLER, ({ name }) =>
      estimateCosts(this.catalog, name),
    );
  }

  /** Whether the flag is on (on every replica alike). */
  isEnabled(flag: FeatureFlag): Promise<boolean> {
    return this.registry.has('tools', toolOf(flag).name);
  }

  /** Switches a flag; resolves with whether it changed, once every replica lists the tools accordingly. */
  async set(flag: FeatureFlag, enabled: boolean): Promise<boolean> {
    if ((await this.isEnabled(flag)) === enabled) return false;
    if (enabled) {
      await this.registry.registerTool(toolOf(flag), ESTIMATE_COSTS_HANDLER);
    } else {
      this.registry.removeTool(toolOf(flag).name);
      await this.registry.settled();
    }
    return true;
  }
}
// #endregion docs:feature-flags

/** The tool a flag adds. */
function toolOf(flag: FeatureFlag) {
  switch (flag) {
    case FeatureFlag.CostInsights:
      return ESTIMATE_COSTS_TOOL;
  }
}
