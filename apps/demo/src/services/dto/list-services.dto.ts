import { IsEnum, IsOptional, IsString } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ServiceStatus } from '../service-status.enum.js';

/** Input of `list_services`: optional filters, combined with AND. */
export class ListServicesDto {
  @JSONSchema({ description: 'Only services in this region, e.g. eu-west-1' })
  @IsOptional()
  @IsString()
  region?: string;

  @JSONSchema({ description: 'Only services in this state' })
  @IsOptional()
  @IsEnum(ServiceStatus)
  status?: ServiceStatus;
}
