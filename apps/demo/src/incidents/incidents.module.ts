import { Module } from '@nestjs/common';
import { ServicesModule } from '../services/index.js';
import { INCIDENT_STEP_MS, IncidentInvestigation } from './incident-investigation.service.js';
import { IncidentsTools } from './incidents.tools.js';

/** Incident reports, run as tasks. */
@Module({
  imports: [ServicesModule],
  providers: [{ provide: INCIDENT_STEP_MS, useValue: 2_000 }, IncidentInvestigation, IncidentsTools],
})
export class IncidentsModule {}
