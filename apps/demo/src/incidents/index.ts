export { IncidentsModule } from './incidents.module.js';
export {
  IncidentInvestigation,
  INCIDENT_STEP_MS,
  INCIDENT_STEPS,
  type IncidentStep,
} from './incident-investigation.service.js';
