export { FeatureFlags } from './feature-flags.service.js';
export { FeatureFlagsTools } from './feature-flags.tools.js';
export { FeatureFlag } from './feature-flag.enum.js';
export { ESTIMATE_COSTS_TOOL, type CostEstimate } from './cost-estimate.tool.js';
