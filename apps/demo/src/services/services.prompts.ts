import { Injectable } from '@nestjs/common';
import { McpArgs, McpContent, McpError, McpPrompt, type McpPromptMessage } from 'nest-mcp';
import { DEFAULT_SEVERITY, INCIDENT_SEVERITIES, isIncidentSeverity } from './incident-severity.constants.js';
import { ServiceCatalog } from './service-catalog.service.js';

// #region docs:incident-summary-prompt
/** Arguments of `incident_summary`; prompt arguments are always strings on the wire. */
interface IncidentSummaryArgs {
  service: string;
  severity?: string;
}

/** Prompt templates for on-call engineers, filled from the live catalog. */
@Injectable()
export class ServicesPrompts {
  constructor(private readonly catalog: ServiceCatalog) {}

  @McpPrompt({
    name: 'incident_summary',
    title: 'Incident summary',
    description: 'Drafts an incident summary for a service from its current state and recent logs.',
    // #region docs:incident-summary-arguments
    arguments: [
      { name: 'service', description: 'The affected service', required: true, complete: 'completeService' },
      {
        name: 'severity',
        description: `One of ${INCIDENT_SEVERITIES.join(', ')} (default ${DEFAULT_SEVERITY})`,
        complete: 'completeSeverity',
      },
    ],
    // #endregion docs:incident-summary-arguments
  })
  incidentSummary(@McpArgs() { service: name, severity = DEFAULT_SEVERITY }: IncidentSummaryArgs): McpPromptMessage[] {
    const service = this.catalog.find(name);
    // Prompt arguments are free text: reject bad values as invalid params, the way a missing argument is.
    if (!service) throw McpError.invalidParams(`Unknown service "${name}"`, { service: name });
    if (!isIncidentSeverity(severity)) {
      throw McpError.invalidParams(`Unknown severity "${severity}"; use one of ${INCIDENT_SEVERITIES.join(', ')}`);
    }
    const logs = this.catalog.logsOf(name) ?? [];
    return [
      {
        role: 'user',
        content: McpContent.embedded(`ops://services/${name}/logs`, logs.join('\n'), 'text/plain'),
      },
      {
        role: 'user',
        content: McpContent.text(
          `Write a ${severity} incident summary for ${service.name} (owner: ${service.owner}). ` +
            `It runs version ${service.version} in ${service.region} with ${service.replicas} replicas and is ${service.status}. ` +
            'Using the logs above, cover impact, timeline, suspected cause and next steps, in under 200 words.',
        ),
      },
    ];
  }

  // #region docs:completers
  /** Completes `service` from the catalog. */
  completeService(value: string): string[] {
    return this.catalog.namesStartingWith(value);
  }

  /** Completes `severity` from the fixed scale. */
  completeSeverity(value: string): string[] {
    return INCIDENT_SEVERITIES.filter((severity) => severity.startsWith(value.toLowerCase()));
  }
  // #endregion docs:completers
}
// #endregion docs:incident-summary-prompt
