import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { growthRatio } from '../../../../test/support/growth.util.js';
import { compileSchema } from './compile-schema.util.js';
import { MAX_SCHEMA_ISSUES } from './schema-issues.util.js';
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
    point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false, minItems: 2 },
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

  it('reports the first failure ($defs/$ref, formats, prefixItems, required, extra properties) as a JSON Pointer', () => {
    const compiled = compileSchema(contactSchema, input);
    const valid = { email: 'ada@example.com' };

    expect
      .soft(sync(compiled.validate({})))
      .toEqual({ valid: false, issues: [{ path: '/email', message: 'is required' }] });
    expect
      .soft(sync(compiled.validate({ ...valid, nick: 'x' })))
      .toEqual({ valid: false, issues: [{ path: '/nick', message: 'is not allowed' }] });
    expect.soft(sync(compiled.validate({ ...valid, point: [1, 'two'] }))).toEqual({
      valid: false,
      issues: [{ path: '/point/1', message: 'must be number' }],
    });
    expect.soft(sync(compiled.validate({ ...valid, point: [1, 2, 3] }))).toEqual({
      valid: false,
      issues: [{ path: '/point', message: 'must NOT have more than 2 items' }],
    });
    expect
      .soft(sync(compiled.validate({ ...valid, tags: [{}] })))
      .toEqual({ valid: false, issues: [{ path: '/tags/0/name', message: 'is required' }] });
    expect.soft(sync(compiled.validate({ email: 'nope' }))).toEqual({
      valid: false,
      issues: [{ path: '/email', message: 'must match format "email"' }],
    });
    // Several failures: only the first is reported (allErrors off: untrusted input must not cost one error per key).
    expect(sync(compiled.validate({ point: [1, 'two', 3], tags: [{}], nick: 'x' }))).toMatchObject({
      valid: false,
      issues: [{}],
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
      definitions: {
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], minItems: 2, additionalItems: false },
      },
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
    expect(() => compileSchema(schema, input)).toThrow(
      /can't resolve reference https:\/\/example.com\/schemas\/a.json/,
    );
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

    const compiled = compileSchema(schema, input);
    expect(sync(compiled.validate({ x: 'a', label: 'ok' }))).toMatchObject({ valid: false, issues: [{ path: '/x' }] });
    expect(sync(compiled.validate({ x: 1, label: 1 }))).toMatchObject({ valid: false, issues: [{ path: '/label' }] });
    expect(sync(compiled.validate({ x: 1, label: 'ok' })).valid).toBe(true);
  });
});

describe('compileSchema (raw JSON Schema): hostile arguments stay cheap (issue #13)', () => {
  const strict = compileSchema(
    { type: 'object', properties: { label: { type: 'string' } }, required: ['label'], additionalProperties: false },
    input,
  );
  const integers = compileSchema(
    { type: 'object', properties: { values: { type: 'array', items: { type: 'integer' } } } },
    input,
  );

  it('300,000 extra keys → one issue, in time linear in the keys', () => {
    const withKeys = (count: number) => {
      const args: Record<string, unknown> = { label: 'ok' };
      for (let index = 0; index < count; index++) args[`k${index}`] = 0;
      return args;
    };
    const inputs = { small: withKeys(30_000), large: withKeys(300_000) };

    expect(sync(strict.validate(inputs.large))).toEqual({
      valid: false,
      issues: [{ path: '/k0', message: 'is not allowed' }],
    });
    // Ten times the keys: about ten times the work (enumerating them), never a hundred (work per pair of keys).
    expect(growthRatio((size) => sync(strict.validate(inputs[size])))).toBeLessThan(35);
  });

  it('1,000,000 strings for an integer array → one issue', () => {
    const outcome = sync(integers.validate({ values: Array.from({ length: 1_000_000 }, () => 'x') }));

    expect(outcome).toEqual({ valid: false, issues: [{ path: '/values/0', message: 'must be integer' }] });
  });

  it('a failed anyOf reports its branches, at most MAX_SCHEMA_ISSUES issues, the rest counted', () => {
    const branches = Array.from({ length: 15 }, (_, index) => ({ const: index }));
    const outcome = sync(
      compileSchema({ type: 'object', properties: { pick: { anyOf: branches } } }, input).validate({ pick: 'x' }),
    );

    expect(outcome).toMatchObject({ valid: false, omitted: 16 - MAX_SCHEMA_ISSUES });
    expect(outcome.valid || outcome.issues).toHaveLength(MAX_SCHEMA_ISSUES);
  });
});

describe('compileSchema (raw JSON Schema): strict mode logs (issue #13)', () => {
  afterEach(() => vi.restoreAllMocks());

  function warningsOf(schema: Record<string, unknown>, owner = "tool 'add'"): string[] {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    compileSchema(schema, { role: 'input', owner });
    return warn.mock.calls.map(([message]) => String(message));
  }

  it('logs a misspelled keyword through a Nest logger, naming the schema, and still compiles', () => {
    const warnings = warningsOf({ type: 'object', properties: { n: { type: 'number', minimun: 1 } } }, "tool 'typo'");

    expect(warnings).toEqual([
      expect.stringMatching(/^Schema of tool 'typo' \(input\): strict mode: unknown keyword: "minimun"/),
    ]);
  });

  it('logs an unknown format once and leaves it unchecked (an annotation, as in 2020-12), instead of failing', () => {
    const schema = { type: 'object', properties: { phone: { type: 'string', format: 'x-phone-number' } } };
    const warnings = warningsOf(schema, "tool 'call'");

    expect(warnings).toEqual([
      `Schema of tool 'call' (input): unknown format "x-phone-number" is not checked (ajv-formats does not define it)`,
    ]);
    expect(sync(compileSchema(schema, input).validate({ phone: 'anything' })).valid).toBe(true);
    expect(sync(compileSchema(schema, input).validate({ phone: 1 })).valid).toBe(false);
  });

  it('does not log MCP annotations, $anchor, union types or required names declared by a parent', () => {
    const schema = {
      type: 'object',
      $defs: { address: { $anchor: 'address', type: 'object' } },
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
        note: { type: ['string', 'null'] },
        home: { $ref: '#address' },
      },
      allOf: [{ required: ['region'] }],
      if: { properties: { size: { const: 'm' } }, required: ['size'] },
      then: { required: ['note'] },
    };
    const warnings = warningsOf(schema);
    const draft07 = warningsOf({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
    });

    expect([...warnings, ...draft07]).toEqual([]);
    // $anchor still resolves.
    expect(sync(compileSchema(schema, input).validate({ region: 'eu', home: 1 }))).toMatchObject({
      valid: false,
      issues: [{ path: '/home' }],
    });
    expect(sync(compileSchema(schema, input).validate({ region: 'eu', home: {} })).valid).toBe(true);
  });
});
