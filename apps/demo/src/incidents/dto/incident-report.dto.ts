import { IsIn, IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { INCIDENT_SEVERITIES, type IncidentSeverity } from '../../services/incident-severity.constants.js';

/** Input of `incident_report`. */
export class IncidentReportDto {
  @JSONSchema({ description: 'The affected service, e.g. checkout-api' })
  @IsString()
  @IsNotEmpty()
  service!: string;

  @JSONSchema({ description: 'sev1 (worst) to sev4; default sev3' })
  @IsOptional()
  @IsIn(INCIDENT_SEVERITIES)
  severity?: IncidentSeverity;
}
