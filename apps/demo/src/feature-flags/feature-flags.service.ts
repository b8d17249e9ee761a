import { Injectable } from '@nestjs/common';
import { McpRegistry } from 'nest-mcp';
import { ServiceCatalog } from '../services/index.js';
import { ESTIMATE_COSTS_TOOL, estimateCosts } from './cost-estimate.tool.js';
import { FeatureFlag } from './feature-flag.enum.js';

// #region docs:feature-flags
/**
 * The console's feature flags. Switching `cost-insights` adds or removes the `estimate_costs` tool at run time:
 * `McpRegistry` publishes the change, so clients listening with `toolsListChanged` are told to list tools again.
 */
@Injectable()
export class FeatureFlags {
  private readonly enabled = new Set<FeatureFlag>();

  constructor(
    private readonly registry: McpRegistry,
    private readonly catalog: ServiceCatalog,
  ) {}

  isEnabled(flag: FeatureFlag): boolean {
    return this.enabled.has(flag);
  }

  /** Switches a flag; returns whether it changed. */
  set(flag: FeatureFlag, enabled: boolean): boolean {
    if (this.enabled.has(flag) === enabled) return false;
    if (enabled) {
      this.registry.registerTool<{ name?: string }>(ESTIMATE_COSTS_TOOL, ({ name }) => estimateCosts(this.catalog, name));
      this.enabled.add(flag);
    } else {
      this.registry.removeTool(ESTIMATE_COSTS_TOOL.name);
      this.enabled.delete(flag);
    }
    return true;
  }
}
// #endregion docs:feature-flags
