import { IsString } from 'class-validator';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.util.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import type { SchemaInput } from './schema-input.interface.js';

const options = { role: 'input', owner: "tool 'echo'" } as const;

class EchoDto {
  @IsString()
  text!: string;
}

describe('compileSchema (source detection)', () => {
  it('treats a class as a DTO, a ~standard object as a Standard Schema and a plain object as JSON Schema', () => {
    const fromDto = compileSchema(EchoDto, options);
    const fromZod = compileSchema(z.object({ text: z.string() }), options);
    const fromJson = compileSchema({ type: 'object', properties: { text: { type: 'string' } } }, options);

    expect(fromDto.validate({ text: 'hi' })).toEqual({ valid: true, value: expect.any(EchoDto) });
    expect(fromZod.validate({ text: 'hi' })).toEqual({ valid: true, value: { text: 'hi' } });
    expect(fromJson.validate({ text: 1 })).toEqual({
      valid: false,
      issues: [{ path: '/text', message: 'must be string' }],
    });
    for (const { jsonSchema } of [fromDto, fromZod, fromJson]) {
      expect(jsonSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    }
  });

  it('also accepts a null-prototype JSON Schema object', () => {
    const schema = Object.assign(Object.create(null) as Record<string, unknown>, { type: 'object' });

    expect(compileSchema(schema, options).jsonSchema).toBe(schema);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['an array', [{ type: 'object' }]],
    ['a string', 'object'],
    ['a boolean', true],
    ['an instance of EchoDto', new EchoDto()],
  ])('rejects %s', (description, value) => {
    expect(() => compileSchema(value as SchemaInput, options)).toThrow(SchemaDefinitionError);
    expect(() => compileSchema(value as SchemaInput, options)).toThrow(
      `Invalid input schema for tool 'echo': expected a DTO class, a Standard Schema or a JSON Schema object, got ${description}`,
    );
  });
});
