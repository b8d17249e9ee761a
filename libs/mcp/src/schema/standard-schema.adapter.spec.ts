import type { StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.util.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import { MAX_SCHEMA_ISSUES } from './schema-issues.util.js';
import type { ValidationOutcome } from './validation-outcome.interface.js';

const input = { role: 'input', owner: "tool 'book'" } as const;
const output = { role: 'output', owner: "tool 'book'" } as const;

function sync<T>(outcome: ValidationOutcome<T> | Promise<ValidationOutcome<T>>): ValidationOutcome<T> {
  expect(outcome).not.toBeInstanceOf(Promise);
  return outcome as ValidationOutcome<T>;
}

const Booking = z.object({
  guest: z.object({ name: z.string(), email: z.email() }),
  nights: z.number().int().min(1),
  rooms: z.array(z.object({ kind: z.enum(['single', 'double']) })),
  note: z.string().optional(),
});

describe('compileSchema (Standard Schema)', () => {
  it('asks zod for the 2020-12 JSON Schema of its input type, without the $schema key', () => {
    const { jsonSchema } = compileSchema(Booking, input);

    expect(jsonSchema).not.toHaveProperty('$schema');
    expect(jsonSchema).toMatchObject({
      type: 'object',
      required: ['guest', 'nights', 'rooms'],
      properties: {
        guest: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
        nights: { type: 'integer', minimum: 1 },
        rooms: { type: 'array', items: { properties: { kind: { enum: ['single', 'double'] } } } },
      },
    });
  });

  it('uses the output JSON Schema for output schemas', () => {
    const WithDefault = z.object({ count: z.number().default(0) });

    expect(compileSchema(WithDefault, input).jsonSchema['required']).toBeUndefined();
    expect(compileSchema(WithDefault, output).jsonSchema['required']).toEqual(['count']);
  });

  it('returns the parsed output value', () => {
    const compiled = compileSchema<z.output<typeof Booking>>(Booking, input);
    const booking = { guest: { name: 'Ada', email: 'ada@example.com' }, nights: 2, rooms: [{ kind: 'double' }] };

    expect(sync(compiled.validate({ ...booking, unknown: 1 }))).toStrictEqual({ valid: true, value: booking });
    expect(sync(compileSchema(z.object({ n: z.coerce.number() }), input).validate({ n: '4' }))).toEqual({
      valid: true,
      value: { n: 4 },
    });
  });

  it('reports issues with JSON Pointer paths', () => {
    const outcome = sync(
      compileSchema(Booking, input).validate({
        guest: { name: 'Ada', email: 'nope' },
        nights: 0,
        rooms: [{ kind: 'suite' }],
      }),
    );

    expect(outcome.valid).toBe(false);
    if (outcome.valid) return;
    expect(outcome.issues.map((issue) => issue.path)).toEqual(['/guest/email', '/nights', '/rooms/0/kind']);
    expect(outcome.issues.every((issue) => issue.message.length > 0)).toBe(true);
  });

  it('passes a Promise through when the validator is asynchronous', async () => {
    const Unique = z.object({ user: z.string() }).refine(async ({ user }) => user !== 'taken', {
      message: 'is already taken',
      path: ['user'],
    });
    const compiled = compileSchema(Unique, input);

    const pending = compiled.validate({ user: 'taken' });
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).resolves.toEqual({ valid: false, issues: [{ path: '/user', message: 'is already taken' }] });
    await expect(compiled.validate({ user: 'free' })).resolves.toEqual({ valid: true, value: { user: 'free' } });
  });

  it('maps {key} path segments', () => {
    const custom: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'custom',
        validate: () => ({ issues: [{ message: 'bad', path: [{ key: 'a' }, 0, 'b/c'] }, { message: 'root' }] }),
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      } as StandardSchemaV1['~standard'],
    };

    expect(compileSchema(custom, input).validate({})).toEqual({
      valid: false,
      issues: [
        { path: '/a/0/b~1c', message: 'bad' },
        { path: '', message: 'root' },
      ],
    });
  });

  it('requires a JSON Schema converter', () => {
    const bare: StandardSchemaV1 = {
      '~standard': { version: 1, vendor: 'acme', validate: (value) => ({ value }) },
    };

    expect(() => compileSchema(bare, input)).toThrow(SchemaDefinitionError);
    expect(() => compileSchema(bare, input)).toThrow(/tool 'book'.*acme.*pass a JSON Schema object or a DTO class/);
  });

  it('reports what the vendor cannot convert', () => {
    expect(() => compileSchema(z.object({ at: z.date() }), input)).toThrow(
      /Invalid input schema for tool 'book': zod could not convert it to JSON Schema: Date cannot be represented/,
    );
    expect(() => compileSchema(z.object({ n: z.string().transform(Number) }), output)).toThrow(
      /Invalid output schema for tool 'book'.*Transforms cannot be represented/,
    );
  });

  it('requires an object root for input schemas', () => {
    expect(() => compileSchema(z.string(), input)).toThrow(/root must be an object schema.*got type "string"/);
    expect(sync(compileSchema(z.string(), output).validate('ok'))).toEqual({ valid: true, value: 'ok' });
  });
});

describe('compileSchema (Standard Schema): bounded issues (issue #13)', () => {
  it('maps only the first MAX_SCHEMA_ISSUES of 1,000,000 reported issues and counts the rest', () => {
    const reported = Array.from({ length: 1_000_000 }, (_, index) => ({
      message: 'must be integer',
      path: ['values', index],
    }));
    const custom: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'custom',
        validate: () => ({ issues: reported }),
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      } as StandardSchemaV1['~standard'],
    };

    const outcome = sync(compileSchema(custom, input).validate({}));

    expect(outcome).toMatchObject({ valid: false, omitted: 1_000_000 - MAX_SCHEMA_ISSUES });
    if (outcome.valid) return;
    expect(outcome.issues).toHaveLength(MAX_SCHEMA_ISSUES);
    expect(outcome.issues[9]).toEqual({ path: '/values/9', message: 'must be integer' });
  });

  it('bounds zod’s issues for 10,000 wrong array items', () => {
    const outcome = sync(
      compileSchema(z.object({ values: z.array(z.number().int()) }), input).validate({
        values: Array.from({ length: 10_000 }, () => 'x'),
      }),
    );

    expect(outcome).toMatchObject({ valid: false, omitted: 10_000 - MAX_SCHEMA_ISSUES });
    if (outcome.valid) return;
    expect(outcome.issues).toHaveLength(MAX_SCHEMA_ISSUES);
    expect(outcome.issues[0].path).toBe('/values/0');
  });

  it('keeps fewer issues as they are, without an omitted count', () => {
    expect(sync(compileSchema(z.object({ a: z.string(), b: z.number() }), input).validate({}))).toEqual({
      valid: false,
      issues: [
        { path: '/a', message: expect.any(String) },
        { path: '/b', message: expect.any(String) },
      ],
    });
  });
});
