import { Module } from '@nestjs/common';
import { FeatureFlags, FeatureFlagsTools } from '../feature-flags/index.js';
import { ServicesModule } from '../services/index.js';
import { DecommissionTools } from './decommission.tools.js';

/**
 * The admin tools, served by the admin server at `/admin/mcp` only (its `include`): decommissioning services and
 * switching feature flags. The flags' tools themselves appear on the customers' server (`/mcp`).
 */
@Module({
  imports: [ServicesModule],
  providers: [FeatureFlags, FeatureFlagsTools, DecommissionTools],
})
export class AdminModule {}
