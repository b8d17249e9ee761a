// #region docs:scale-service-dto
import { IsInt, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ServiceNameDto } from './service-name.dto.js';

/** Fewest replicas `scale_service` accepts. */
export const MIN_REPLICAS = 1;
/** Most replicas `scale_service` accepts. */
export const MAX_REPLICAS = 50;

/** Input of `scale_service`. */
export class ScaleServiceDto extends ServiceNameDto {
  @JSONSchema({ description: `Target number of replicas, ${MIN_REPLICAS} to ${MAX_REPLICAS}` })
  @IsInt()
  @Min(MIN_REPLICAS)
  @Max(MAX_REPLICAS)
  replicas!: number;
}
// #endregion docs:scale-service-dto
