import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { CompiledSchema, CompileSchemaOptions } from './compiled-schema.interface.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import type { JsonSchemaObject } from './schema-input.interface.js';
import { appendPointer, keepIssues } from './schema-issues.util.js';
import { assertSchemaShape } from './schema-shape.guard.js';
import type { SchemaIssue, ValidationOutcome } from './validation-outcome.interface.js';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** A Standard Schema that may also implement the Standard JSON Schema extension. */
type StandardProps = StandardSchemaV1.Props & Partial<Pick<StandardJSONSchemaV1.Props, 'jsonSchema'>>;

/**
 * Whether `input` is a Standard Schema (it has a `~standard` property). Checked before the DTO-class test since
 * some vendors' schemas (arktype) are functions.
 *
 * @internal
 */
export function isStandardSchema(input: unknown): input is StandardSchemaV1 {
  return (typeof input === 'object' || typeof input === 'function') && input !== null && '~standard' in input;
}

/** Asks the vendor for the 2020-12 JSON Schema of the role's side (input or output type) of the schema. */
function toJsonSchema(
  { vendor, jsonSchema: converter }: StandardProps,
  options: CompileSchemaOptions,
): JsonSchemaObject {
  const convert = converter?.[options.role];
  if (typeof convert !== 'function') {
    throw SchemaDefinitionError.of(
      options,
      `this ${vendor} schema cannot produce a JSON Schema (no Standard JSON Schema "~standard.jsonSchema"); ` +
        'pass a JSON Schema object or a DTO class instead',
    );
  }
  const generated = SchemaDefinitionError.guard(
    options,
    () => convert({ target: 'draft-2020-12' }),
    `${vendor} could not convert it to JSON Schema: `,
  );
  if (typeof generated !== 'object' || generated === null || Array.isArray(generated)) {
    throw SchemaDefinitionError.of(options, `${vendor} returned a JSON Schema that is not an object`);
  }
  const { $schema, ...rest } = generated;
  return $schema === DRAFT_2020_12 ? rest : generated;
}

/** Maps one Standard Schema issue (a key path) to a JSON Pointer issue. */
function toIssue({ message, path = [] }: StandardSchemaV1.Issue): SchemaIssue {
  return {
    path: appendPointer('', ...path.map((segment) => (typeof segment === 'object' ? segment.key : segment))),
    message,
  };
}

/**
 * Maps a Standard Schema result to a {@link ValidationOutcome}. Vendors report every issue (zod: one per wrong array
 * item); only the first `MAX_SCHEMA_ISSUES` are mapped, the rest counted.
 */
function toOutcome<T>(result: StandardSchemaV1.Result<unknown>): ValidationOutcome<T> {
  return result.issues ? keepIssues(result.issues, toIssue) : { valid: true, value: result.value as T };
}

/**
 * Compiles a Standard Schema (zod 4, valibot, arktype…). The wire schema comes from the vendor's Standard JSON
 * Schema converter (input side for `input`, output side for `output`, top-level 2020-12 `$schema` dropped);
 * validation calls `~standard.validate` and yields the schema's output value. A validator that answers with a
 * Promise (e.g. an async zod refinement) makes `validate` return a Promise.
 *
 * @throws SchemaDefinitionError if the vendor has no JSON Schema converter or the conversion fails.
 * @internal
 */
export function compileStandardSchema<T>(schema: StandardSchemaV1, options: CompileSchemaOptions): CompiledSchema<T> {
  const props: StandardProps = schema['~standard'];
  if (typeof props?.validate !== 'function') {
    throw SchemaDefinitionError.of(options, '"~standard.validate" is not a function (not a Standard Schema v1)');
  }
  const jsonSchema = toJsonSchema(props, options);
  assertSchemaShape(jsonSchema, options);
  return {
    jsonSchema,
    validate(value: unknown): ValidationOutcome<T> | Promise<ValidationOutcome<T>> {
      const result = props.validate(value);
      return 'then' in result ? Promise.resolve(result).then((settled) => toOutcome<T>(settled)) : toOutcome<T>(result);
    },
  };
}
