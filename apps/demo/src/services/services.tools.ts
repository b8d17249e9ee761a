import { Injectable } from '@nestjs/common';
import { McpArgs, McpContent, McpTool, McpToolError, type McpCallToolResult } from 'nest-mcp';
import { OPS_READ, OPS_WRITE, OpsScopes } from '../access/index.js';
import {
  ListServicesDto,
  RestartServiceDto,
  ScaleServiceDto,
  ServiceDto,
  ServiceListDto,
  ServiceNameDto,
} from './dto/index.js';
import type { ManagedService } from './managed-service.interface.js';
import { ServiceCatalog } from './service-catalog.service.js';
import { ServiceStatus } from './service-status.enum.js';

/**
 * The console's actions. Arguments are validated against the DTOs before a method runs, so the methods only
 * check business rules; an `McpToolError` turns into an `isError` result the model can read and correct. With
 * authorization on, every tool here needs `ops:read`, changing ones `ops:write`. Decommissioning is an admin tool,
 * on the admin server (apps/demo/src/admin).
 */
@Injectable()
@OpsScopes(OPS_READ)
export class ServicesTools {
  constructor(private readonly catalog: ServiceCatalog) {}

  @McpTool({
    name: 'list_services',
    title: 'List services',
    description: 'Lists the services of the fleet, optionally filtered by region and/or status.',
    input: ListServicesDto,
    output: ServiceListDto,
    annotations: { readOnlyHint: true },
  })
  listServices(@McpArgs() filter: ListServicesDto): ServiceListDto {
    return { services: this.catalog.list(filter) };
  }

  @McpTool({
    name: 'get_service',
    title: 'Get a service',
    description: 'Returns the status, version, region, owner and replica count of one service.',
    input: ServiceNameDto,
    output: ServiceDto,
    annotations: { readOnlyHint: true },
  })
  getService(@McpArgs('name') name: string): ServiceDto {
    return this.require(name);
  }

  @OpsScopes(OPS_WRITE)
  // #region docs:scale-service
  @McpTool({
    name: 'scale_service',
    title: 'Scale a service',
    description: 'Sets the number of replicas (1 to 50) of a running or degraded service.',
    input: ScaleServiceDto,
    output: ServiceDto,
    annotations: { idempotentHint: true },
  })
  scaleService(@McpArgs() { name, replicas }: ScaleServiceDto): ServiceDto {
    const service = this.require(name);
    if (service.status === ServiceStatus.Stopped) {
      throw new McpToolError(`${name} is stopped; restart it with restart_service before scaling it.`);
    }
    return this.catalog.scale(name, replicas);
  }
  // #endregion docs:scale-service

  @OpsScopes(OPS_WRITE)
  // #region docs:restart-service
  @McpTool({
    name: 'restart_service',
    title: 'Restart a service',
    description: 'Restarts every replica of a service, dropping in-flight requests. Confirm with the user first.',
    input: RestartServiceDto,
    annotations: { destructiveHint: true, idempotentHint: false },
  })
  restartService(@McpArgs() { name, reason }: RestartServiceDto): McpCallToolResult {
    this.require(name);
    const service = this.catalog.restart(name, reason);
    return {
      content: [
        McpContent.text(
          `Restarted ${service.name} (${service.version}): ${service.replicas} replicas are ${service.status}.`,
        ),
        McpContent.resourceLink({
          uri: `ops://services/${service.name}/logs`,
          name: `${service.name} logs`,
          mimeType: 'text/plain',
        }),
      ],
    };
  }
  // #endregion docs:restart-service

  // #region docs:require-service
  /** The service called `name`, or a tool error that lists the names the model may use instead. */
  private require(name: string): ManagedService {
    const service = this.catalog.find(name);
    if (!service) {
      throw new McpToolError(`No service named "${name}". Known services: ${this.catalog.names().join(', ')}.`);
    }
    return service;
  }
  // #endregion docs:require-service
}
