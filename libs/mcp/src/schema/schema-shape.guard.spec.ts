import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.util.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import { MAX_SCHEMA_DEPTH } from './schema-shape.guard.js';

const options = { role: 'input', owner: "tool 'deep'" } as const;

/** An object schema whose property `a` nests `levels` object schemas in total (root included). */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'object' };
  for (let level = 1; level < levels; level++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

// spec 2026-07-28: basic/index, "Composition-Keyword Resource Use"
describe('schema depth bound', () => {
  it(`accepts ${MAX_SCHEMA_DEPTH} levels of sub-schemas`, () => {
    expect(() => compileSchema(nested(MAX_SCHEMA_DEPTH), options)).not.toThrow();
  });

  it('rejects one more level, naming where', () => {
    expect(() => compileSchema(nested(MAX_SCHEMA_DEPTH + 1), options)).toThrow(SchemaDefinitionError);
    expect(() => compileSchema(nested(MAX_SCHEMA_DEPTH + 1), options)).toThrow(
      /tool 'deep'.*nested deeper than 64 levels \(at "(\/properties\/a){64}"\)/,
    );
  });

  it('treats keyword arrays (allOf, prefixItems…) as transparent', () => {
    let schema: Record<string, unknown> = { description: 'leaf' };
    for (let level = 1; level < MAX_SCHEMA_DEPTH; level++) schema = { allOf: [schema] };
    expect(() => compileSchema({ ...schema, type: 'object' }, options)).not.toThrow();
    expect(() => compileSchema({ type: 'object', allOf: [schema] }, options)).toThrow(/nested deeper/);
  });

  it('rejects a cyclic schema object instead of overflowing the stack', () => {
    const schema: Record<string, unknown> = { type: 'object', properties: {} };
    (schema['properties'] as Record<string, unknown>)['self'] = schema;

    expect(() => compileSchema(schema, options)).toThrow(/nested deeper than 64 levels/);
  });

  it('applies to Standard Schemas too', () => {
    let schema: z.ZodType = z.string();
    for (let level = 0; level < MAX_SCHEMA_DEPTH; level++) schema = z.object({ a: schema });

    expect(() => compileSchema(schema, options)).toThrow(/nested deeper/);
  });
});
