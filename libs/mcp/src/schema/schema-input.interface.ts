import type { StandardSchemaV1 } from '@standard-schema/spec';

/** A JSON Schema document (or sub-schema) as a plain object. */
export type JsonSchemaObject = Record<string, unknown>;

/**
 * What `@McpTool({ input, output })` accepts as a schema:
 *
 * - a DTO class decorated with class-validator (and optionally class-transformer) decorators;
 * - a Standard Schema (zod, valibot, arktype…), which must also implement the Standard JSON Schema extension;
 * - a raw JSON Schema object (2020-12 by default, draft-07 when its `$schema` says so).
 */
export type SchemaInput = (abstract new (...args: any[]) => unknown) | StandardSchemaV1 | JsonSchemaObject;
