import type { McpToolOptions } from 'nest-mcp';
import type { ServiceCatalog } from '../services/index.js';

/** What one replica costs per month, in US dollars (list price of the instance type the fleet runs on). */
const MONTHLY_USD_PER_REPLICA = 38.5;

/** The monthly cost of the fleet (or of one service), by service. */
export interface CostEstimate {
  currency: 'USD';
  services: { name: string; replicas: number; monthly: number }[];
  totalMonthly: number;
}

/** The name under which every replica provides the handler of `estimate_costs` (`McpRegistry.provideHandler`). */
export const ESTIMATE_COSTS_HANDLER = 'estimate-costs';

/** The tool the `cost-insights` flag adds at run time. Runtime tools take plain JSON Schemas. */
export const ESTIMATE_COSTS_TOOL: McpToolOptions & { name: string } = {
  name: 'estimate_costs',
  title: 'Estimate costs',
  description: 'Estimates the monthly cost of the fleet, or of one service, from its replica count.',
  input: { type: 'object', properties: { name: { type: 'string', description: 'Only this service' } } },
  output: {
    type: 'object',
    properties: {
      currency: { const: 'USD' },
      services: {
        type: 'array',
        items: {
          type: 'object',
          properties: { name: { type: 'string' }, replicas: { type: 'integer' }, monthly: { type: 'number' } },
          required: ['name', 'replicas', 'monthly'],
        },
      },
      totalMonthly: { type: 'number' },
    },
    required: ['currency', 'services', 'totalMonthly'],
  },
  annotations: { readOnlyHint: true },
};

/** Prices the services of the catalog (all of them, or the one called `name`). */
export function estimateCosts(catalog: ServiceCatalog, name?: string): CostEstimate {
  const services = catalog
    .list()
    .filter((service) => name === undefined || service.name === name)
    .map(({ name: service, replicas }) => ({ name: service, replicas, monthly: replicas * MONTHLY_USD_PER_REPLICA }));
  return { currency: 'USD', services, totalMonthly: services.reduce((sum, service) => sum + service.monthly, 0) };
}
