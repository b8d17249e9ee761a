import { IsBoolean, IsEnum } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { FeatureFlag } from '../feature-flag.enum.js';

/** Input of `set_feature_flag`. */
export class SetFeatureFlagDto {
  @JSONSchema({ description: 'The feature to switch' })
  @IsEnum(FeatureFlag)
  flag!: FeatureFlag;

  @JSONSchema({ description: 'On (true) or off (false)' })
  @IsBoolean()
  enabled!: boolean;
}
