import { IsString, Matches } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ServiceNameDto } from '../../services/dto/index.js';

/** Input of `deploy_release`. */
export class DeployReleaseDto extends ServiceNameDto {
  @JSONSchema({ description: 'The version to roll out (semver, e.g. 4.13.0)' })
  @IsString()
  @Matches(/^\d+\.\d+\.\d+$/, { message: 'version must be a semver version such as 4.13.0' })
  version!: string;
}
