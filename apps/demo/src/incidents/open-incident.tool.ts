import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { McpArgs, McpEvents, McpTool, McpToolError } from 'nest-mcp';
import { OPS_WRITE, OpsScopes } from '../access/index.js';
import type { IncidentOpened } from '../ops-events/index.js';
import { ServiceCatalog, ServiceStatus } from '../services/index.js';
import { DEFAULT_SEVERITY } from '../services/incident-severity.constants.js';
import { OpenIncidentDto } from './dto/open-incident.dto.js';

/** Opening incidents: each one is an `incident.opened` event for the console's subscribers (docs/events.md). */
@Injectable()
@OpsScopes(OPS_WRITE)
export class OpenIncidentTool {
  constructor(
    private readonly catalog: ServiceCatalog,
    private readonly events: McpEvents,
  ) {}

  @McpTool({
    name: 'open_incident',
    title: 'Open an incident',
    description:
      'Opens an incident on a service and tells the incident.opened subscribers; a sev1 also marks the service ' +
      'degraded (a service.status_changed event).',
    input: OpenIncidentDto,
    annotations: { idempotentHint: false },
  })
  async openIncident(@McpArgs() { service, title, severity = DEFAULT_SEVERITY }: OpenIncidentDto): Promise<string> {
    if (!this.catalog.find(service))
      throw new McpToolError(`No service named "${service}". Known services: ${this.catalog.names().join(', ')}.`);
    const incidentId = `INC-${randomBytes(4).toString('hex').toUpperCase()}`;
    const incident: IncidentOpened = { incidentId, service, severity, title };
    // The incident's own id is the event's: a subscriber that sees it twice (a retried webhook) knows it is one.
    await this.events.emit('incident.opened', incident, { eventId: `inc_${incidentId}` });
    if (severity === 'sev1') this.catalog.setStatus(service, ServiceStatus.Degraded, `${incidentId} opened: ${title}`);
    return `Opened ${incidentId} (${severity}) on ${service}: ${title}`;
  }
}
