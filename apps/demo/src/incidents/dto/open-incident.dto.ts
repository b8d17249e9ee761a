import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { INCIDENT_SEVERITIES, type IncidentSeverity } from '../../services/incident-severity.constants.js';

/** Input of `open_incident`. */
export class OpenIncidentDto {
  @JSONSchema({ description: 'The affected service, e.g. checkout-api' })
  @IsString()
  @IsNotEmpty()
  service!: string;

  @JSONSchema({ description: 'What is wrong, in one line' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  title!: string;

  @JSONSchema({ description: 'sev1 (worst) to sev4; default sev3. A sev1 marks the service degraded.' })
  @IsOptional()
  @IsIn(INCIDENT_SEVERITIES)
  severity?: IncidentSeverity;
}
