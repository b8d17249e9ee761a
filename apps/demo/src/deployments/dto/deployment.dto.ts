import { IsInt, IsString } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/** Output of `deploy_release`: what changed. */
export class DeploymentDto {
  @JSONSchema({ description: 'The service deployed' })
  @IsString()
  service!: string;

  @JSONSchema({ description: 'The version it ran before' })
  @IsString()
  fromVersion!: string;

  @JSONSchema({ description: 'The version it runs now' })
  @IsString()
  toVersion!: string;

  @JSONSchema({ description: 'Rollout steps completed' })
  @IsInt()
  steps!: number;
}
