/** Features an admin can switch on and off while the console runs. */
export enum FeatureFlag {
  /** Adds the `estimate_costs` tool. */
  CostInsights = 'cost-insights',
}
