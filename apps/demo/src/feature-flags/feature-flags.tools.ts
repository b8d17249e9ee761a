import { Injectable, UseGuards } from '@nestjs/common';
import { McpArgs, McpTool } from 'nest-mcp';
import { OPS_ADMIN, OpsAdminGuard, OpsScopes } from '../access/index.js';
import { SetFeatureFlagDto } from './dto/set-feature-flag.dto.js';
import { FeatureFlags } from './feature-flags.service.js';

/** Admin switches for features that come and go at run time. */
@Injectable()
@OpsScopes(OPS_ADMIN)
export class FeatureFlagsTools {
  constructor(private readonly flags: FeatureFlags) {}

  @McpTool({
    name: 'set_feature_flag',
    title: 'Set a feature flag',
    description: 'Switches a console feature on or off (admins only). cost-insights adds the estimate_costs tool.',
    input: SetFeatureFlagDto,
    annotations: { idempotentHint: true },
  })
  @UseGuards(OpsAdminGuard)
  async setFeatureFlag(@McpArgs() { flag, enabled }: SetFeatureFlagDto): Promise<string> {
    const changed = await this.flags.set(flag, enabled);
    return `${flag} is ${changed ? 'now' : 'already'} ${enabled ? 'on' : 'off'}.`;
  }
}
