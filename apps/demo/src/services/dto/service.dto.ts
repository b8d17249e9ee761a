import { IsEnum, IsInt, IsString, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import type { ManagedService } from '../managed-service.interface.js';
import { ServiceStatus } from '../service-status.enum.js';

/** A service as tools return it; also the output schema of `get_service` and `scale_service`. */
export class ServiceDto implements ManagedService {
  @JSONSchema({ description: 'Unique service name' })
  @IsString()
  name!: string;

  @JSONSchema({ description: 'Current state' })
  @IsEnum(ServiceStatus)
  status!: ServiceStatus;

  @JSONSchema({ description: 'Deployed version (semver)' })
  @IsString()
  version!: string;

  @JSONSchema({ description: 'Cloud region, e.g. eu-west-1' })
  @IsString()
  region!: string;

  @JSONSchema({ description: 'Owning team, paged for incidents' })
  @IsString()
  owner!: string;

  @JSONSchema({ description: 'Running instances; 0 while stopped' })
  @IsInt()
  @Min(0)
  replicas!: number;
}
