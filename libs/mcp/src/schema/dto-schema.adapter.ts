import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import type { CompiledSchema, CompileSchemaOptions } from './compiled-schema.interface.js';
import { dtoJsonSchema, type DtoClass } from './dto-schema.factory.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import { appendPointer } from './schema-issues.util.js';
import { assertSchemaShape } from './schema-shape.guard.js';
import type { SchemaIssue, ValidationOutcome } from './validation-outcome.interface.js';

/** Flattens a class-validator error tree: one issue per failed constraint, nested errors under their parent. */
function toIssues(errors: readonly ValidationError[], parent = ''): SchemaIssue[] {
  return errors.flatMap((error) => {
    const path = appendPointer(parent, error.property);
    const own = Object.values(error.constraints ?? {}).map((message) => ({ path, message }));
    return [...own, ...toIssues(error.children ?? [], path)];
  });
}

/**
 * Compiles a class-validator DTO: the wire schema comes from class-validator-jsonschema (cached per class), and
 * validation runs `plainToInstance` then `validateSync` with `whitelist: true`, so unknown properties are
 * stripped and `@Type` / `@Transform` apply. On success the value is the DTO instance.
 *
 * @throws SchemaDefinitionError if the class cannot be turned into a usable JSON Schema.
 * @internal
 */
export function compileDtoSchema<T>(dto: DtoClass, options: CompileSchemaOptions): CompiledSchema<T> {
  const jsonSchema = SchemaDefinitionError.guard(options, () => dtoJsonSchema(dto));
  assertSchemaShape(jsonSchema, options);
  return {
    jsonSchema,
    validate(value: unknown): ValidationOutcome<T> {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return { valid: false, issues: [{ path: '', message: 'must be an object' }] };
      }
      const instance = plainToInstance(dto as ClassConstructor<object>, value);
      const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: false });
      return errors.length === 0 ? { valid: true, value: instance as T } : { valid: false, issues: toIssues(errors) };
    },
  };
}
