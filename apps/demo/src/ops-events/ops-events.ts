import { Injectable } from '@nestjs/common';
import { McpEvent } from 'nest-mcp';
import { OPS_READ, OpsScopes } from '../access/index.js';
import type { IncidentSeverity } from '../services/incident-severity.constants.js';
import { DeploymentFilterDto, IncidentFilterDto, ServiceFilterDto } from './ops-event-filters.dto.js';

/** What the console emits when a rollout ends (`deploy_release`). */
export interface DeploymentFinished {
  service: string;
  version: string;
  fromVersion: string;
  outcome: 'succeeded' | 'failed' | 'cancelled';
}

/** What the console emits when an incident is opened (`open_incident`). */
export interface IncidentOpened {
  incidentId: string;
  service: string;
  severity: IncidentSeverity;
  title: string;
}

/** What the console emits when a service's status changes (`restart_service`, `open_incident` with sev1). */
export interface ServiceStatusChanged {
  service: string;
  from: string;
  to: string;
}

const STRING = { type: 'string' } as const;

/**
 * The console's event types (the MCP Events extension, docs/events.md): each method is its type's matcher, called
 * per subscription with what was emitted and that subscription's arguments; it returns the payload or nothing.
 * Poll, push stream and webhook all offered; with `--auth` they need `ops:read`, like the read tools.
 */
@Injectable()
@OpsScopes(OPS_READ)
export class OpsEvents {
  @McpEvent({
    name: 'deployment.finished',
    description: 'A rollout of a release ended (succeeded, failed or cancelled)',
    input: DeploymentFilterDto,
    payload: {
      type: 'object',
      properties: { service: STRING, version: STRING, fromVersion: STRING, outcome: STRING },
      required: ['service', 'version', 'outcome'],
    },
  })
  deploymentFinished(deployment: DeploymentFinished, filter: DeploymentFilterDto): DeploymentFinished | undefined {
    if (filter.service !== undefined && deployment.service !== filter.service) return undefined;
    if (filter.outcome !== undefined && deployment.outcome !== filter.outcome) return undefined;
    return deployment;
  }

  @McpEvent({
    name: 'incident.opened',
    description: 'An incident was opened on a service',
    input: IncidentFilterDto,
    payload: {
      type: 'object',
      properties: { incidentId: STRING, service: STRING, severity: STRING, title: STRING },
      required: ['incidentId', 'service', 'severity'],
    },
  })
  incidentOpened(incident: IncidentOpened, filter: IncidentFilterDto): IncidentOpened | undefined {
    if (filter.service !== undefined && incident.service !== filter.service) return undefined;
    if (filter.severity !== undefined && incident.severity !== filter.severity) return undefined;
    return incident;
  }

  @McpEvent({
    name: 'service.status_changed',
    description: "A service's status changed (running, degraded, stopped)",
    input: ServiceFilterDto,
    payload: {
      type: 'object',
      properties: { service: STRING, from: STRING, to: STRING },
      required: ['service', 'from', 'to'],
    },
  })
  serviceStatusChanged(change: ServiceStatusChanged, filter: ServiceFilterDto): ServiceStatusChanged | undefined {
    return filter.service === undefined || change.service === filter.service ? change : undefined;
  }
}
