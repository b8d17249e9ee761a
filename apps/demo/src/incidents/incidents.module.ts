import { Module } from '@nestjs/common';
import { ServicesModule } from '../services/index.js';
import { INCIDENT_STEP_MS, IncidentInvestigation } from './incident-investigation.service.js';
import { IncidentsTools } from './incidents.tools.js';
import { LogSummaryTool } from './log-summary.tool.js';
import { OpenIncidentTool } from './open-incident.tool.js';

/**
 * Incident reports, run as tasks (a step takes 2 s, or `INCIDENT_STEP_MS` from the environment), log summaries
 * by the client's model, and opening incidents (an `incident.opened` event).
 */
@Module({
  imports: [ServicesModule],
  providers: [
    { provide: INCIDENT_STEP_MS, useFactory: () => stepMs(process.env.INCIDENT_STEP_MS) },
    IncidentInvestigation,
    IncidentsTools,
    LogSummaryTool,
    OpenIncidentTool,
  ],
})
export class IncidentsModule {}

/** The length of a step: `value` in milliseconds when it is a positive integer, 2,000 otherwise. */
function stepMs(value: string | undefined): number {
  const ms = Number(value);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : 2_000;
}
