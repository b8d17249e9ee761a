import { IsOptional, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ServiceNameDto } from './service-name.dto.js';

/** Input of `restart_service`. */
export class RestartServiceDto extends ServiceNameDto {
  @JSONSchema({ description: 'Why the service is restarted; written to its log' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  reason?: string;
}
