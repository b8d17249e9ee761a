import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError, type ValidatorOptions } from 'class-validator';
import type { CompiledSchema, CompileSchemaOptions } from './compiled-schema.interface.js';
import { dtoJsonSchema, type DtoClass } from './dto-schema.factory.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import { appendPointer, MAX_SCHEMA_ISSUES } from './schema-issues.util.js';
import { assertSchemaShape } from './schema-shape.guard.js';
import type { SchemaIssue, ValidationOutcome } from './validation-outcome.interface.js';

/**
 * Most properties one object of a DTO tool's arguments may have. class-transformer's `plainToInstance` takes time
 * quadratic in an object's key count (300,000 extra keys: about a minute of CPU), before `whitelist` could strip
 * them; far more than any DTO declares or a model sends in a map.
 */
export const MAX_DTO_OBJECT_KEYS = 1000;

/**
 * `whitelist`: unknown properties are stripped (not refused). `stopAtFirstError`: one message per property, and a
 * property that already failed (`@ArrayMaxSize`) skips its nested validation. `forbidUnknownValues` (class-validator's
 * default, stated): a nested value without a DTO class fails. Errors do not keep the target or the value.
 */
const VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: false,
  forbidUnknownValues: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
};

/**
 * The path (tokens) to the first object, depth first, with more than {@link MAX_DTO_OBJECT_KEYS} keys; the path is
 * only built when one is found.
 */
function crowdedObject(value: object): PropertyKey[] | undefined {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const found = typeof item === 'object' && item !== null ? crowdedObject(item) : undefined;
      if (found) return [index, ...found];
    }
    return undefined;
  }
  let keys = 0;
  for (const key in value) {
    if (++keys > MAX_DTO_OBJECT_KEYS) return [];
    const item: unknown = (value as Record<string, unknown>)[key];
    const found = typeof item === 'object' && item !== null ? crowdedObject(item) : undefined;
    if (found) return [key, ...found];
  }
  return undefined;
}

/**
 * Flattens a class-validator error tree, depth first: one issue per failed constraint, nested errors under their
 * parent. Keeps the first {@link MAX_SCHEMA_ISSUES} and counts the rest.
 */
function toOutcome(errors: readonly ValidationError[]): { valid: false; issues: SchemaIssue[]; omitted?: number } {
  const issues: SchemaIssue[] = [];
  let omitted = 0;
  const visit = (level: readonly ValidationError[], parent: string): void => {
    for (const error of level) {
      // Once enough issues are kept, the rest are only counted: no path is built for them.
      const path = issues.length < MAX_SCHEMA_ISSUES ? appendPointer(parent, error.property) : '';
      for (const message of Object.values(error.constraints ?? {})) {
        if (issues.length < MAX_SCHEMA_ISSUES) issues.push({ path, message });
        else omitted++;
      }
      if (error.children?.length) visit(error.children, path);
    }
  };
  visit(errors, '');
  return omitted > 0 ? { valid: false, issues, omitted } : { valid: false, issues };
}

/**
 * Compiles a class-validator DTO: the wire schema comes from class-validator-jsonschema (cached per class), and
 * validation runs `plainToInstance` then `validateSync` with `whitelist: true`, so unknown properties are
 * stripped and `@Type` / `@Transform` apply. On success the value is the DTO instance. Arguments (role `input`) with
 * an object of more than {@link MAX_DTO_OBJECT_KEYS} keys are refused before class-transformer sees them.
 *
 * @throws SchemaDefinitionError if the class cannot be turned into a usable JSON Schema.
 * @internal
 */
export function compileDtoSchema<T>(dto: DtoClass, options: CompileSchemaOptions): CompiledSchema<T> {
  const jsonSchema = SchemaDefinitionError.guard(options, () => dtoJsonSchema(dto));
  assertSchemaShape(jsonSchema, options);
  // Arguments are untrusted; a handler's own output (role `output`) may hold larger maps.
  const untrusted = options.role === 'input';
  return {
    jsonSchema,
    validate(value: unknown): ValidationOutcome<T> {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return { valid: false, issues: [{ path: '', message: 'must be an object' }] };
      }
      const crowded = untrusted ? crowdedObject(value) : undefined;
      if (crowded) {
        return {
          valid: false,
          issues: [
            {
              path: appendPointer('', ...crowded),
              message: `must NOT have more than ${MAX_DTO_OBJECT_KEYS} properties`,
            },
          ],
        };
      }
      const instance = plainToInstance(dto as ClassConstructor<object>, value);
      const errors = validateSync(instance, VALIDATOR_OPTIONS);
      return errors.length === 0 ? { valid: true, value: instance as T } : toOutcome(errors);
    },
  };
}
