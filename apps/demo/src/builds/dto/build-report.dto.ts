import { IsInt, IsString } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/** Output of `build_package`: the report scripts/build.mjs printed on stdout. */
export class BuildReportDto {
  @JSONSchema({ description: 'The package built' })
  @IsString()
  package!: string;

  @JSONSchema({ description: 'Source files compiled' })
  @IsInt()
  files!: number;

  @JSONSchema({ description: 'Bytes of JavaScript written' })
  @IsInt()
  bytes!: number;

  @JSONSchema({ description: 'How long the build took, in milliseconds' })
  @IsInt()
  durationMs!: number;
}
