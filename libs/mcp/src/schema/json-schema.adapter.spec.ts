import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.util.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import type { ValidationOutcome } from './validation-outcome.interface.js';

const input = { role: 'input', owner: "tool 'add'" } as const;
const output = { role: 'output', owner: "tool 'add'" } as const;

function sync<T>(outcome: ValidationOutcome<T> | Promise<ValidationOutcome<T>>): ValidationOutcome<T> {
  expect(outcome).not.toBeInstanceOf(Promise);
  return outcome as ValidationOutcome<T>;
}

const contactSchema = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email' },
    point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
    tags: { type: 'array', items: { $ref: '#/$defs/tag' } },
  },
  required: ['email'],
  additionalProperties: false,
  $defs: { tag: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
};

describe('compileSchema (raw JSON Schema)', () => {
  it('puts the schema on the wire as given and returns the value unchanged', () => {
    const compiled = compileSchema(contactSchema, input);
    const value = { email: 'ada@example.com', point: [1, 2], tags: [{ name: 'vip' }] };

    expect(compiled.jsonSchema).toBe(contactSchema);
    const outcome = sync(compiled.validate(value));
    expect(outcome).toEqual({ valid: true, value });
    expect(outcome.valid && outcome.value).toBe(value);
  });

  it('reports all errors ($defs/$ref, formats, prefixItems, required, extra properties) as JSON Pointers', () => {
    const outcome = sync(
      compileSchema(contactSchema, input).validate({ point: [1, 'two', 3], tags: [{}], nick: 'x' }),
    );

    expect(outcome.valid).toBe(false);
    if (outcome.valid) return;
    expect(outcome.issues).toEqual(
      expect.arrayContaining([
        { path: '/email', message: 'is required' },
        { path: '/nick', message: 'is not allowed' },
        { path: '/point/1', message: 'must be number' },
        { path: '/point', message: 'must NOT have more than 2 items' },
        { path: '/tags/0/name', message: 'is required' },
      ]),
    );
    expect(sync(compileSchema(contactSchema, input).validate({ email: 'nope' }))).toEqual({
      valid: false,
      issues: [{ path: '/email', message: 'must match format "email"' }],
    });
  });

  it('accepts an explicit 2020-12 $schema', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' };

    expect(sync(compileSchema(schema, input).validate({})).valid).toBe(true);
  });

  it('supports draft-07 schemas (definitions, tuple items)', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { at: { $ref: '#/definitions/pair' } },
      definitions: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } },
    };
    const compiled = compileSchema(schema, input);

    expect(compiled.jsonSchema).toBe(schema);
    expect(sync(compiled.validate({ at: ['x', 1] })).valid).toBe(true);
    expect(sync(compiled.validate({ at: ['x', 1.5] }))).toEqual({
      valid: false,
      issues: [{ path: '/at/1', message: 'must be integer' }],
    });
  });

  it('rejects other dialects', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' };

    expect(() => compileSchema(schema, input)).toThrow(SchemaDefinitionError);
    expect(() => compileSchema(schema, input)).toThrow(/Invalid input schema for tool 'add': unsupported dialect/);
  });

  it('never fetches a remote $ref: it fails at compile time', () => {
    const schema = { type: 'object', properties: { a: { $ref: 'https://example.com/schemas/a.json' } } };

    expect(() => compileSchema(schema, input)).toThrow(SchemaDefinitionError);
    expect(() => compileSchema(schema, input)).toThrow(/can't resolve reference https:\/\/example.com\/schemas\/a.json/);
  });

  it('rejects a malformed schema with Ajv’s message', () => {
    expect(() => compileSchema({ type: 'object', properties: { a: { type: 'strnig' } } }, input)).toThrow(
      /tool 'add'.*schema is invalid/,
    );
  });

  it('requires an object root for input schemas but not for output schemas', () => {
    const schema = { type: 'array', items: { type: 'string' } };

    expect(() => compileSchema(schema, input)).toThrow(/root must be an object schema/);
    expect(() => compileSchema({ properties: {} }, input)).toThrow(/got type undefined/);
    expect(sync(compileSchema(schema, output).validate(['a'])).valid).toBe(true);
    expect(sync(compileSchema({ type: 'string' }, output).validate(1))).toEqual({
      valid: false,
      issues: [{ path: '', message: 'must be string' }],
    });
  });

  it('compiles different schemas sharing an $id', () => {
    const first = compileSchema({ $id: 'https://example.com/args', type: 'object', required: ['a'] }, input);
    const second = compileSchema({ $id: 'https://example.com/args', type: 'object', required: ['b'] }, input);

    expect(sync(first.validate({ a: 1 })).valid).toBe(true);
    expect(sync(second.validate({ a: 1 })).valid).toBe(false);
  });

  it('resolves $ref to the schema’s own $id and to embedded $ids', () => {
    const schema = {
      $id: 'https://example.com/point',
      type: 'object',
      properties: { x: { $ref: 'https://example.com/point#/$defs/n' }, label: { $ref: 'label' } },
      $defs: { n: { type: 'number' }, label: { $id: 'label', type: 'string' } },
    };

    expect(sync(compileSchema(schema, input).validate({ x: 'a', label: 1 }))).toMatchObject({
      valid: false,
      issues: [{ path: '/x' }, { path: '/label' }],
    });
  });
});
