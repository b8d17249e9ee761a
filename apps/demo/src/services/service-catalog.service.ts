import { Injectable, Logger } from '@nestjs/common';
import { McpEvents, McpPublisher } from 'nest-mcp';
import type { ManagedService, ServiceFilter } from './managed-service.interface.js';
import { SEED_SERVICES } from './service-catalog.seed.js';
import { ServiceStatus } from './service-status.enum.js';

/** Log lines kept per service; older lines are dropped. */
const MAX_LOG_LINES = 200;

/**
 * The fleet of services and their recent logs, kept in memory. A real console would call a deployment API
 * here; everything MCP-facing goes through this provider, so swapping it is the only change needed.
 * Methods return copies: callers can never mutate the catalog by accident. Each change is published, so clients
 * subscribed to `ops://services/<name>` (or its logs) hear of it — on every replica when the console runs on Redis.
 */
@Injectable()
export class ServiceCatalog {
  private readonly logger = new Logger('ServiceCatalog');
  private readonly services = new Map<string, ManagedService>(
    SEED_SERVICES.map((service) => [service.name, { ...service }]),
  );
  private readonly logs = new Map<string, string[]>(
    SEED_SERVICES.map(({ name, version, replicas }) => [
      name,
      [logLine(`deployed version ${version} (${replicas} replicas)`)],
    ]),
  );

  constructor(
    private readonly publisher: McpPublisher,
    private readonly events: McpEvents,
  ) {}

  /** Services matching `filter`, sorted by name. */
  list(filter: ServiceFilter = {}): ManagedService[] {
    return [...this.services.values()]
      .filter((service) => matches(service, filter))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((service) => ({ ...service }));
  }

  /** The service called `name`, or `undefined`. */
  find(name: string): ManagedService | undefined {
    const service = this.services.get(name);
    return service && { ...service };
  }

  /** All service names, sorted. */
  names(): string[] {
    return [...this.services.keys()].sort();
  }

  /** Names starting with `prefix` (case-insensitive), for completion. */
  namesStartingWith(prefix: string): string[] {
    const lower = prefix.toLowerCase();
    return this.names().filter((name) => name.startsWith(lower));
  }

  /** Sets the replica count of a service and returns it. Throws for an unknown name: check with `find` first. */
  scale(name: string, replicas: number): ManagedService {
    const service = this.get(name);
    this.append(name, `scaled from ${service.replicas} to ${replicas} replicas`);
    service.replicas = replicas;
    return { ...service };
  }

  /**
   * Restarts every replica (a stopped service comes back with one) and returns the service.
   * Throws for an unknown name: check with `find` first.
   */
  restart(name: string, reason?: string): ManagedService {
    const service = this.get(name);
    this.statusChanged(name, service.status, ServiceStatus.Running);
    service.status = ServiceStatus.Running;
    service.replicas = Math.max(service.replicas, 1);
    this.append(name, `restarted ${service.replicas} replicas${reason ? `: ${reason}` : ''}`);
    return { ...service };
  }

  /** Records that `version` is now deployed and returns the service. Throws for an unknown name. */
  deploy(name: string, version: string): ManagedService {
    const service = this.get(name);
    this.append(name, `deployed version ${version} (was ${service.version})`);
    service.version = version;
    return { ...service };
  }

  /** Removes a service from the fleet for good (its logs go with it). Throws for an unknown name. */
  decommission(name: string): ManagedService {
    const service = this.get(name);
    this.services.delete(name);
    this.logs.delete(name);
    return { ...service };
  }

  /** Appends a line to a service's log (deployments report their steps there). Throws for an unknown name. */
  note(name: string, message: string): void {
    this.get(name);
    this.append(name, message);
  }

  /** Recent log lines of a service, oldest first, or `undefined` for an unknown service. */
  logsOf(name: string): string[] | undefined {
    return this.logs.get(name)?.slice();
  }

  private get(name: string): ManagedService {
    const service = this.services.get(name);
    if (!service) throw new Error(`Unknown service: ${name}`);
    return service;
  }

  /**
   * Sets a service's status (an incident degrades it) and returns the service. Throws for an unknown name: check
   * with `find` first.
   */
  setStatus(name: string, status: ServiceStatus, why: string): ManagedService {
    const service = this.get(name);
    if (service.status === status) return { ...service };
    this.statusChanged(name, service.status, status);
    service.status = status;
    this.append(name, `status ${status}: ${why}`);
    return { ...service };
  }

  /** Tells the `service.status_changed` subscribers (events extension), if the status really changes. */
  private statusChanged(name: string, from: ServiceStatus, to: ServiceStatus): void {
    if (from === to) return;
    // Like the change notices below: the change is made either way; a log that cannot take the event costs one event.
    this.events
      .emit('service.status_changed', { service: name, from, to })
      .catch((error: unknown) => this.logger.warn(`Could not emit the status change of ${name}: ${String(error)}`));
  }

  /** Every change of a service appends to its log: listeners of the service and of its logs are told. */
  private append(name: string, message: string): void {
    const lines = this.logs.get(name) ?? [];
    lines.push(logLine(message));
    this.logs.set(name, lines.slice(-MAX_LOG_LINES));
    for (const uri of [`ops://services/${name}`, `ops://services/${name}/logs`]) {
      // The change is made either way: a bus that cannot carry the news (Redis down) costs listeners one update.
      this.publisher
        .resourceUpdated(uri)
        .catch((error: unknown) => this.logger.warn(`Could not publish ${uri}: ${String(error)}`));
    }
  }
}

function matches(service: ManagedService, { region, status }: ServiceFilter): boolean {
  return (region === undefined || service.region === region) && (status === undefined || service.status === status);
}

function logLine(message: string): string {
  return `${new Date().toISOString()} INFO ${message}`;
}
