import type { CompiledSchema, CompileSchemaOptions } from './compiled-schema.interface.js';
import { compileDtoSchema } from './dto-schema.adapter.js';
import { compileJsonSchema } from './json-schema.adapter.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import type { JsonSchemaObject, SchemaInput } from './schema-input.interface.js';
import { compileStandardSchema, isStandardSchema } from './standard-schema.adapter.js';

function isPlainObject(input: unknown): input is JsonSchemaObject {
  if (typeof input !== 'object' || input === null) return false;
  const prototype: unknown = Object.getPrototypeOf(input);
  return prototype === Object.prototype || prototype === null;
}

function describe(input: unknown): string {
  if (input === null || Array.isArray(input)) return input === null ? 'null' : 'an array';
  if (typeof input === 'object') return `an instance of ${input.constructor?.name ?? 'an unknown class'}`;
  return `a ${typeof input}`;
}

/**
 * Turns what a user declares in `@McpTool({ input, output })` into a wire JSON Schema and a validator.
 * Call it once per schema at bootstrap; the returned {@link CompiledSchema} is meant for the hot path.
 *
 * - an object with a `~standard` property → Standard Schema (zod, valibot…);
 * - a function (class) → class-validator DTO;
 * - any other plain object → raw JSON Schema (2020-12 by default, or draft-07).
 *
 * Every schema may nest at most 64 levels, and an `input` schema must have `type: "object"` at its root.
 *
 * @throws SchemaDefinitionError naming `options.owner` when the schema cannot be used.
 */
export function compileSchema<T = unknown>(input: SchemaInput, options: CompileSchemaOptions): CompiledSchema<T> {
  if (isStandardSchema(input)) return compileStandardSchema<T>(input, options);
  if (typeof input === 'function') return compileDtoSchema<T>(input, options);
  if (isPlainObject(input)) return compileJsonSchema<T>(input, options);
  throw SchemaDefinitionError.of(
    options,
    `expected a DTO class, a Standard Schema or a JSON Schema object, got ${describe(input)}`,
  );
}
