import { describe, expect, it } from 'vitest';
import { assertMatchesDef } from '../../../../test/support/wire-schema.validator.js';
import { FormSchema, McpForm } from './form-schema.builder.js';

/**
 * McpForm builds the restricted, flat schemas of elicitation form mode (spec 2026-07-28: client/elicitation,
 * "Requested Schema"). Every field is checked for its exact shape and against the matching `$defs` entry of the
 * official 2026-07-28 schema; every form against `ElicitRequestFormParams`; and `validate` against content a client
 * might send.
 */

/** The form's requestedSchema must fit an `elicitation/create` form request of the official schema. */
function assertValidForm(form: FormSchema<unknown>): void {
  assertMatchesDef('ElicitRequestFormParams', { mode: 'form', message: 'm', requestedSchema: form.requestedSchema });
  for (const [name, property] of Object.entries(form.requestedSchema.properties as Record<string, unknown>)) {
    assertMatchesDef('PrimitiveSchemaDefinition', property, `property ${name}`);
  }
}

describe('McpForm fields', () => {
  it('string: bare, and with every option', () => {
    expect(McpForm.string().schema).toEqual({ type: 'string' });
    const full = McpForm.string({
      title: 'Name',
      description: 'Your name',
      minLength: 1,
      maxLength: 50,
      default: 'Ada',
    });
    expect(full.schema).toEqual({
      type: 'string',
      title: 'Name',
      description: 'Your name',
      minLength: 1,
      maxLength: 50,
      default: 'Ada',
    });
    assertMatchesDef('StringSchema', full.schema);
  });

  it.each(['email', 'uri', 'date', 'date-time'] as const)('string format %s', (format) => {
    const field = McpForm.string({ format });
    expect(field.schema).toEqual({ type: 'string', format });
    assertMatchesDef('StringSchema', field.schema);
  });

  it('number and integer with bounds and defaults', () => {
    const number = McpForm.number({ title: 'Ratio', minimum: 0, maximum: 1.5, default: 0.5 });
    expect(number.schema).toEqual({ type: 'number', title: 'Ratio', minimum: 0, maximum: 1.5, default: 0.5 });
    assertMatchesDef('NumberSchema', number.schema);
    const integer = McpForm.integer({ minimum: 18, description: 'Age' });
    expect(integer.schema).toEqual({ type: 'integer', minimum: 18, description: 'Age' });
    assertMatchesDef('NumberSchema', integer.schema);
    expect(McpForm.number().schema).toEqual({ type: 'number' });
    expect(McpForm.integer().schema).toEqual({ type: 'integer' });
  });

  it('boolean with a default (false is kept)', () => {
    const field = McpForm.boolean({ title: 'Sure?', default: false });
    expect(field.schema).toEqual({ type: 'boolean', title: 'Sure?', default: false });
    assertMatchesDef('BooleanSchema', field.schema);
    expect(McpForm.boolean().schema).toEqual({ type: 'boolean' });
  });

  it('options given as undefined are left out of the schema', () => {
    expect(McpForm.string({ title: undefined, format: undefined, default: undefined }).schema).toEqual({
      type: 'string',
    });
    expect(McpForm.number({ minimum: undefined }).schema).toEqual({ type: 'number' });
  });

  it('untitled single choice → enum', () => {
    const field = McpForm.enum(['red', 'green', 'blue'], { title: 'Colour', default: 'green' });
    expect(field.schema).toEqual({ type: 'string', enum: ['red', 'green', 'blue'], title: 'Colour', default: 'green' });
    assertMatchesDef('UntitledSingleSelectEnumSchema', field.schema);
  });

  it('titled single choice → oneOf of { const, title }', () => {
    const field = McpForm.enum(
      [
        { const: 'eu', title: 'Europe' },
        { const: 'us', title: 'United States' },
      ],
      { default: 'eu', description: 'Region' },
    );
    expect(field.schema).toEqual({
      type: 'string',
      oneOf: [
        { const: 'eu', title: 'Europe' },
        { const: 'us', title: 'United States' },
      ],
      default: 'eu',
      description: 'Region',
    });
    expect(field.schema).not.toHaveProperty('enum');
    assertMatchesDef('TitledSingleSelectEnumSchema', field.schema);
  });

  it('untitled multiple choice → array of string enum items', () => {
    const field = McpForm.multiEnum(['a', 'b', 'c'], { minItems: 1, maxItems: 2, default: ['a'] });
    expect(field.schema).toEqual({
      type: 'array',
      items: { type: 'string', enum: ['a', 'b', 'c'] },
      minItems: 1,
      maxItems: 2,
      default: ['a'],
    });
    assertMatchesDef('UntitledMultiSelectEnumSchema', field.schema);
  });

  it('titled multiple choice → items.anyOf of { const, title }', () => {
    const field = McpForm.multiEnum(
      [
        { const: 'r', title: 'Read' },
        { const: 'w', title: 'Write' },
      ],
      { title: 'Permissions' },
    );
    expect(field.schema).toEqual({
      type: 'array',
      items: {
        anyOf: [
          { const: 'r', title: 'Read' },
          { const: 'w', title: 'Write' },
        ],
      },
      title: 'Permissions',
    });
    assertMatchesDef('TitledMultiSelectEnumSchema', field.schema);
  });

  it('an empty choice list is refused', () => {
    expect(() => McpForm.enum([])).toThrow(TypeError);
    expect(() => McpForm.multiEnum([])).toThrow(TypeError);
  });

  it('fields are required unless .optional(); .optional() does not change the original field', () => {
    const field = McpForm.string({ title: 'T' });
    const optional = field.optional();
    expect(field.isOptional).toBe(false);
    expect(optional.isOptional).toBe(true);
    expect(optional.schema).toEqual(field.schema);
    expect(optional.optional().isOptional).toBe(true);
  });
});

describe('McpForm.object', () => {
  const form = McpForm.object({
    name: McpForm.string({ minLength: 1, maxLength: 20 }),
    email: McpForm.string({ format: 'email' }),
    website: McpForm.string({ format: 'uri' }).optional(),
    birthday: McpForm.string({ format: 'date' }).optional(),
    meeting: McpForm.string({ format: 'date-time' }).optional(),
    ratio: McpForm.number({ minimum: 0, maximum: 1 }).optional(),
    age: McpForm.integer({ minimum: 18, maximum: 130 }),
    subscribe: McpForm.boolean({ default: true }),
    colour: McpForm.enum(['red', 'green']).optional(),
    region: McpForm.enum([
      { const: 'eu', title: 'Europe' },
      { const: 'us', title: 'US' },
    ]).optional(),
    tags: McpForm.multiEnum(['x', 'y', 'z'], { minItems: 1, maxItems: 2 }).optional(),
    perms: McpForm.multiEnum([
      { const: 'r', title: 'Read' },
      { const: 'w', title: 'Write' },
    ]).optional(),
  });

  const valid = { name: 'Ada', email: 'ada@example.com', age: 36, subscribe: false };

  it('is a flat object schema listing exactly the required fields', () => {
    expect(form).toBeInstanceOf(FormSchema);
    expect(form.requestedSchema.type).toBe('object');
    expect(Object.keys(form.requestedSchema.properties as object)).toEqual([
      'name',
      'email',
      'website',
      'birthday',
      'meeting',
      'ratio',
      'age',
      'subscribe',
      'colour',
      'region',
      'tags',
      'perms',
    ]);
    expect(form.requestedSchema.required).toEqual(['name', 'email', 'age', 'subscribe']);
    assertValidForm(form as FormSchema<unknown>);
  });

  it('leaves out "required" when every field is optional, and allows an empty form', () => {
    const allOptional = McpForm.object({ note: McpForm.string().optional() });
    expect(allOptional.requestedSchema).toEqual({ type: 'object', properties: { note: { type: 'string' } } });
    assertValidForm(allOptional as FormSchema<unknown>);
    const empty = McpForm.object({});
    expect(empty.requestedSchema).toEqual({ type: 'object', properties: {} });
    expect(empty.validate({})).toBe(true);
  });

  it('validate accepts conforming content (with and without optional fields)', () => {
    expect(form.validate(valid)).toBe(true);
    expect(
      form.validate({
        ...valid,
        website: 'https://example.com/x',
        birthday: '1815-12-10',
        meeting: '2026-07-28T10:00:00Z',
        ratio: 0.25,
        colour: 'green',
        region: 'us',
        tags: ['x', 'z'],
        perms: ['r', 'w'],
      }),
    ).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a missing required field', { name: 'Ada', email: 'ada@example.com', age: 36 }],
    ['a string too short', { ...valid, name: '' }],
    ['a string too long', { ...valid, name: 'x'.repeat(21) }],
    ['a bad email', { ...valid, email: 'not-an-email' }],
    ['a bad uri', { ...valid, website: 'not a uri' }],
    ['a bad date', { ...valid, birthday: '10/12/1815' }],
    ['a bad date-time', { ...valid, meeting: 'tomorrow' }],
    ['a number above its maximum', { ...valid, ratio: 1.5 }],
    ['a number given as a string', { ...valid, ratio: '0.5' }],
    ['an integer below its minimum', { ...valid, age: 17 }],
    ['a fractional integer', { ...valid, age: 36.5 }],
    ['a boolean given as a string', { ...valid, subscribe: 'yes' }],
    ['an unknown untitled choice', { ...valid, colour: 'purple' }],
    ['an unknown titled choice', { ...valid, region: 'asia' }],
    ['a title instead of the titled const', { ...valid, region: 'Europe' }],
    ['an unknown item in a multiple choice', { ...valid, tags: ['x', 'q'] }],
    ['too few items', { ...valid, tags: [] }],
    ['too many items', { ...valid, tags: ['x', 'y', 'z'] }],
    ['a multiple choice that is not an array', { ...valid, tags: 'x' }],
    ['an unknown titled multiple-choice item', { ...valid, perms: ['x'] }],
    ['null content', null],
    ['undefined content', undefined],
    ['an array', [valid]],
    ['a string', 'Ada'],
  ])('validate rejects %s', (_label, content) => {
    expect(form.validate(content)).toBe(false);
  });
});
