import { Injectable } from '@nestjs/common';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { McpEvent, McpEvents, type McpEventMatchContext, McpScopes } from 'nest-mcp';

/** What the application emits when an incident opens. */
export interface Incident {
  id: string;
  severity: 'P1' | 'P2' | 'P3';
  service: string;
  title: string;
  /** Internal notes: never delivered (the matcher leaves them out). */
  notes: string;
}

// #region docs:event-type
/** What a subscriber may filter on: the subscription's arguments (`inputSchema`). */
export class IncidentFilter {
  @IsOptional()
  @IsIn(['P1', 'P2', 'P3'])
  severity?: 'P1' | 'P2' | 'P3';

  @IsOptional()
  @IsString()
  service?: string;
}

/** What each subscriber receives (`payloadSchema`): minimal, ids and triage fields only. */
const INCIDENT_PAYLOAD = {
  type: 'object',
  properties: { incidentId: { type: 'string' }, severity: { type: 'string' }, title: { type: 'string' } },
  required: ['incidentId', 'severity'],
};

@Injectable()
export class IncidentEvents {
  /** The matcher: for each subscription, whether this incident reaches it, and as what. */
  @McpEvent({
    name: 'incident.opened',
    description: 'An incident was opened',
    input: IncidentFilter,
    payload: INCIDENT_PAYLOAD,
  })
  incidentOpened(incident: Incident, filter: IncidentFilter, context: McpEventMatchContext) {
    if (filter.severity !== undefined && incident.severity !== filter.severity) return undefined;
    if (filter.service !== undefined && incident.service !== filter.service) return undefined;
    return {
      incidentId: incident.id,
      severity: incident.severity,
      title: context.delivery === 'webhook' ? incident.title.slice(0, 200) : incident.title,
    };
  }

  /** Live only (no replay: every cursor is null), for push streams and webhooks; only for tokens with audit:read. */
  @McpScopes('audit:read')
  @McpEvent({ name: 'audit.entry', delivery: ['push', 'webhook'], replay: false })
  auditEntry(): boolean {
    return true;
  }
}
// #endregion docs:event-type

// #region docs:emit
@Injectable()
export class IncidentService {
  constructor(private readonly events: McpEvents) {}

  async open(incident: Incident): Promise<void> {
    // … persist the incident, then tell the subscribers (eventId: the incident's own id, stable across retries).
    await this.events.emit('incident.opened', incident, { eventId: `inc_${incident.id}` });
  }
}
// #endregion docs:emit
