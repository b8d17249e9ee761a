import type { JsonSchemaObject } from './schema-input.interface.js';
import type { ValidationOutcome } from './validation-outcome.interface.js';

/** A schema resolved once at bootstrap: its wire JSON Schema and a validator for the hot path. */
export interface CompiledSchema<T = unknown> {
  /** The JSON Schema to advertise (`inputSchema` / `outputSchema`). Shared: treat it as read-only. */
  readonly jsonSchema: JsonSchemaObject;
  /**
   * Validates (and, for DTOs and Standard Schemas, transforms) a value.
   * Synchronous except when a Standard Schema validator is itself asynchronous.
   */
  validate(value: unknown): ValidationOutcome<T> | Promise<ValidationOutcome<T>>;
}

/** Where a schema is used; drives the root-type rule and error messages. */
export interface CompileSchemaOptions {
  /** `input` schemas must describe an object (`type: "object"`); `output` schemas may be any JSON Schema. */
  role: 'input' | 'output';
  /** Who declared the schema, for error messages, e.g. `tool 'add'`. */
  owner: string;
}
