import type { ServiceStatus } from './service-status.enum.js';

/** One service of the fleet, as the catalog knows it. */
export interface ManagedService {
  /** Unique, DNS-safe name, e.g. `checkout-api`. */
  name: string;
  status: ServiceStatus;
  /** Deployed version (semver). */
  version: string;
  /** Cloud region the service runs in, e.g. `eu-west-1`. */
  region: string;
  /** Team that owns the service and is paged for it. */
  owner: string;
  /** Running instances; `0` while stopped. */
  replicas: number;
}

/** Criteria of {@link ServiceCatalog.list}; omitted fields match everything. */
export interface ServiceFilter {
  region?: string;
  status?: ServiceStatus;
}
