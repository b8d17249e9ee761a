import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpError, McpResource, McpResourceContext, McpResourceTemplate } from 'nest-mcp';
import { OPS_READ, OpsScopes } from '../access/index.js';
import type { ManagedService } from './managed-service.interface.js';
import { OPS_RUNBOOK } from './ops-runbook.constants.js';
import { ServiceCatalog } from './service-catalog.service.js';

// With authorization on, reading them needs ops:read.
@OpsScopes(OPS_READ)
// #region docs:services-resources
/** Read-only views of the fleet for clients to attach as context: the runbook, the catalog, one service, its logs. */
@Injectable()
export class ServicesResources {
  constructor(private readonly catalog: ServiceCatalog) {}

  @McpResource({
    uri: 'ops://runbook',
    name: 'runbook',
    title: 'On-call runbook',
    description: 'How to triage, mitigate and escalate incidents with this console.',
    mimeType: 'text/markdown',
  })
  runbook(): string {
    return OPS_RUNBOOK;
  }

  @McpResource({
    uri: 'ops://services',
    name: 'services',
    title: 'Service catalog',
    description: 'Every service of the fleet, as JSON.',
    mimeType: 'application/json',
  })
  services(): string {
    return JSON.stringify({ services: this.catalog.list() }, null, 2);
  }

  @McpResourceTemplate({
    uriTemplate: 'ops://services/{name}',
    name: 'service',
    title: 'Service',
    description: 'One service, as JSON.',
    mimeType: 'application/json',
    complete: { name: 'completeName' },
  })
  service(@McpArgs('name') name: string, @McpCtx() context: McpResourceContext): string {
    return JSON.stringify(this.require(name, context), null, 2);
  }

  @McpResourceTemplate({
    uriTemplate: 'ops://services/{name}/logs',
    name: 'service-logs',
    title: 'Service logs',
    description: 'Recent log lines of one service, oldest first.',
    mimeType: 'text/plain',
    complete: { name: 'completeName' },
  })
  logs(@McpArgs('name') name: string, @McpCtx() context: McpResourceContext): string {
    this.require(name, context);
    return (this.catalog.logsOf(name) ?? []).join('\n');
  }

  /** Completes the `name` variable of both templates from the catalog. */
  completeName(value: string): string[] {
    return this.catalog.namesStartingWith(value);
  }

  /** A URI that matches a template but names no service is answered like any unknown resource. */
  private require(name: string, context: McpResourceContext): ManagedService {
    const service = this.catalog.find(name);
    if (!service) throw McpError.resourceNotFound(context.uri);
    return service;
  }
}
// #endregion docs:services-resources
