import type { ManagedService } from './managed-service.interface.js';
import { ServiceStatus } from './service-status.enum.js';

/** The fleet the in-memory catalog starts with. */
export const SEED_SERVICES: readonly ManagedService[] = [
  {
    name: 'checkout-api',
    status: ServiceStatus.Running,
    version: '4.12.0',
    region: 'eu-west-1',
    owner: 'payments',
    replicas: 6,
  },
  {
    name: 'payments-worker',
    status: ServiceStatus.Running,
    version: '2.3.1',
    region: 'eu-west-1',
    owner: 'payments',
    replicas: 4,
  },
  {
    name: 'search-indexer',
    status: ServiceStatus.Degraded,
    version: '1.8.4',
    region: 'us-east-1',
    owner: 'discovery',
    replicas: 2,
  },
  {
    name: 'auth-gateway',
    status: ServiceStatus.Running,
    version: '7.0.2',
    region: 'us-east-1',
    owner: 'identity',
    replicas: 8,
  },
  {
    name: 'inventory-sync',
    status: ServiceStatus.Stopped,
    version: '0.9.7',
    region: 'ap-southeast-2',
    owner: 'supply-chain',
    replicas: 0,
  },
];
