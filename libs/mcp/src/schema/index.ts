/*
 * What other folders may use of schema/: compile a declared schema once, and word validation failures.
 * The adapters behind `compileSchema` stay inside this folder.
 */
export { compileSchema } from './compile-schema.util.js';
export type { CompiledSchema, CompileSchemaOptions } from './compiled-schema.interface.js';
export type { ValidationOutcome } from './validation-outcome.interface.js';
export { SchemaDefinitionError } from './schema-definition.error.js';
export type { JsonSchemaObject, SchemaInput } from './schema-input.interface.js';
export { formatIssues, formatKeys } from './schema-issues.util.js';
