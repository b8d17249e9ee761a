import { Type } from 'class-transformer';
import { IsArray, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ServiceDto } from './service.dto.js';

/** Output of `list_services`: an object rather than a bare array, so the result can gain fields later. */
export class ServiceListDto {
  @JSONSchema({ description: 'Matching services, sorted by name' })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ServiceDto)
  services!: ServiceDto[];
}
