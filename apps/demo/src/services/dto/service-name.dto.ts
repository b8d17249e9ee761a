import { IsNotEmpty, IsString } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/** Input of the tools that act on one service by name (`get_service`). */
export class ServiceNameDto {
  @JSONSchema({ description: 'The service name, e.g. checkout-api' })
  @IsString()
  @IsNotEmpty()
  name!: string;
}
