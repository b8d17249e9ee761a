import { IsIn, IsOptional, IsString } from 'class-validator';
import { INCIDENT_SEVERITIES, type IncidentSeverity } from '../services/incident-severity.constants.js';

/** Subscription arguments of `deployment.finished`: which service, which outcome (both optional). */
export class DeploymentFilterDto {
  @IsOptional()
  @IsString()
  service?: string;

  @IsOptional()
  @IsIn(['succeeded', 'failed', 'cancelled'])
  outcome?: 'succeeded' | 'failed' | 'cancelled';
}

/** Subscription arguments of `incident.opened`: which service, which severity (both optional). */
export class IncidentFilterDto {
  @IsOptional()
  @IsString()
  service?: string;

  @IsOptional()
  @IsIn(INCIDENT_SEVERITIES)
  severity?: IncidentSeverity;
}

/** Subscription arguments of `service.status_changed`: which service (optional). */
export class ServiceFilterDto {
  @IsOptional()
  @IsString()
  service?: string;
}
