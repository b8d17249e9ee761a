import { IsIn } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { BUILDABLE_PACKAGES, type BuildablePackage } from '../build-script.constants.js';

/** Input of `build_package`. */
export class BuildPackageDto {
  @JSONSchema({
    description: `The package of this repository to build: ${BUILDABLE_PACKAGES.join(', ')} (libs/<package>)`,
    enum: [...BUILDABLE_PACKAGES],
  })
  @IsIn(BUILDABLE_PACKAGES)
  package!: BuildablePackage;
}
