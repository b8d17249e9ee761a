import { IsIn, IsInt, IsOptional, IsString } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import type { RolloutState, RolloutStatus } from '../rollout.interface.js';

const STATUSES: RolloutStatus[] = ['running', 'succeeded', 'failed', 'cancelled'];

/** Output of `deployment_status` and `cancel_deployment`: the latest rollout of a service. */
export class RolloutDto implements RolloutState {
  @JSONSchema({ description: 'The service' })
  @IsString()
  service!: string;

  @JSONSchema({ description: 'The version being rolled out' })
  @IsString()
  version!: string;

  @JSONSchema({ description: 'The version the service ran before' })
  @IsString()
  fromVersion!: string;

  @JSONSchema({ description: 'Where the rollout stands' })
  @IsIn(STATUSES)
  status!: RolloutStatus;

  @JSONSchema({ description: 'Every step, in order', type: 'array', items: { type: 'string' } })
  @IsString({ each: true })
  steps!: string[];

  @JSONSchema({ description: 'Steps done' })
  @IsInt()
  completed!: number;

  @JSONSchema({ description: 'What happened, once it ended badly' })
  @IsOptional()
  @IsString()
  message?: string;
}
