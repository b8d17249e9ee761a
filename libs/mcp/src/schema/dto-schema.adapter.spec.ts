import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsEnum,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsObject } from 'class-validator';
import { growthRatio } from '../../../../test/support/growth.util.js';
import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.util.js';
import { MAX_DTO_OBJECT_KEYS } from './dto-schema.adapter.js';
import { MAX_SCHEMA_ISSUES } from './schema-issues.util.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import type { ValidationOutcome } from './validation-outcome.interface.js';

enum Priority {
  Low = 'low',
  High = 'high',
}

class TagDto {
  @IsString()
  @MinLength(1)
  name!: string;
}

class OwnerDto {
  @IsEmail()
  email!: string;
}

class CreateTaskDto {
  @IsString()
  title!: string;

  @IsOptional()
  @IsEnum(Priority)
  priority?: Priority;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => TagDto)
  tags!: TagDto[];

  @IsOptional()
  @ValidateNested()
  @Type(() => OwnerDto)
  owner?: OwnerDto;
}

class PageDto {
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  size!: number;
}

class TreeDto {
  @IsString()
  label!: string;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => TreeDto)
  children?: TreeDto[];
}

const options = { role: 'input', owner: "tool 'create_task'" } as const;

function sync<T>(outcome: ValidationOutcome<T> | Promise<ValidationOutcome<T>>): ValidationOutcome<T> {
  expect(outcome).not.toBeInstanceOf(Promise);
  return outcome as ValidationOutcome<T>;
}

describe('compileSchema (DTO class)', () => {
  it('builds a self-contained 2020-12 object schema with nested DTOs in $defs', () => {
    const { jsonSchema } = compileSchema(CreateTaskDto, options);

    expect(jsonSchema).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string' },
        priority: { type: 'string', enum: ['low', 'high'] },
        tags: { type: 'array', items: { $ref: '#/$defs/TagDto' } },
        owner: { $ref: '#/$defs/OwnerDto' },
      },
      required: ['title', 'tags'],
      $defs: {
        TagDto: { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] },
        OwnerDto: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] },
      },
    });
  });

  it('builds the schema once per class', () => {
    expect(compileSchema(CreateTaskDto, options).jsonSchema).toBe(compileSchema(CreateTaskDto, options).jsonSchema);
  });

  it('supports recursive DTOs', () => {
    const { jsonSchema } = compileSchema(TreeDto, options);

    expect(jsonSchema['properties']).toEqual({
      label: { type: 'string' },
      children: { type: 'array', items: { $ref: '#/$defs/TreeDto' } },
    });
    expect(jsonSchema['$defs']).toHaveProperty('TreeDto.properties.label');
  });

  it('returns the DTO instance, nested instances included, without unknown properties', () => {
    const outcome = sync(
      compileSchema<CreateTaskDto>(CreateTaskDto, options).validate({
        title: 'Ship it',
        priority: 'high',
        tags: [{ name: 'release' }],
        owner: { email: 'ada@example.com' },
        extra: true,
      }),
    );

    expect(outcome.valid).toBe(true);
    if (!outcome.valid) return;
    expect(outcome.value).toBeInstanceOf(CreateTaskDto);
    expect(outcome.value.tags[0]).toBeInstanceOf(TagDto);
    expect(outcome.value).not.toHaveProperty('extra');
  });

  it('reports every failure with a JSON Pointer path, nested ones included', () => {
    const outcome = sync(
      compileSchema(CreateTaskDto, options).validate({
        priority: 'urgent',
        tags: [{ name: 'ok' }, { name: '' }],
        owner: { email: 'not-an-email' },
      }),
    );

    expect(outcome.valid).toBe(false);
    if (outcome.valid) return;
    const paths = outcome.issues.map((issue) => issue.path);
    expect(paths).toContain('/title');
    expect(paths).toContain('/priority');
    expect(paths).toContain('/tags/1/name');
    expect(paths).toContain('/owner/email');
    expect(paths).not.toContain('/tags/0/name');
    expect(outcome.issues.find((issue) => issue.path === '/tags/1/name')?.message).toMatch(/name must be longer/);
  });

  it('applies class-transformer conversions before validating', () => {
    const compiled = compileSchema<PageDto>(PageDto, options);

    expect(sync(compiled.validate({ size: '25' }))).toEqual({ valid: true, value: expect.any(PageDto) });
    expect((sync(compiled.validate({ size: '25' })) as { value: PageDto }).value.size).toBe(25);
    expect(sync(compiled.validate({ size: '500' }))).toMatchObject({ valid: false, issues: [{ path: '/size' }] });
  });

  it('rejects a value that is not an object with an issue at the root', () => {
    const compiled = compileSchema(PageDto, options);

    for (const value of [null, 42, 'x', [{ size: 1 }]]) {
      expect(sync(compiled.validate(value))).toEqual({
        valid: false,
        issues: [{ path: '', message: 'must be an object' }],
      });
    }
  });

  it('rejects two different nested DTO classes with the same name', () => {
    const make = (label: string) => {
      class Item {
        @IsString()
        [label]!: string;
      }
      return Item;
    };
    const First = make('a');
    const Second = make('b');
    class Pair {
      @ValidateNested()
      @Type(() => First)
      first!: unknown;

      @ValidateNested()
      @Type(() => Second)
      second!: unknown;
    }

    expect(() => compileSchema(Pair, options)).toThrow(SchemaDefinitionError);
    expect(() => compileSchema(Pair, options)).toThrow(/tool 'create_task'.*named "Item"/);
  });
});

class SamplesDto {
  @IsInt({ each: true })
  values!: number[];
}

class PointDto {
  @IsInt()
  @Min(0)
  x!: number;
}

/** At most 100,000 points: 20,000 are validated one by one, 200,000 are refused by their number alone. */
class PathDto {
  @IsArray()
  @ArrayMaxSize(100_000)
  @ValidateNested({ each: true })
  @Type(() => PointDto)
  points!: PointDto[];
}

class CodeDto {
  @IsString()
  @MinLength(3)
  code!: string;

  @IsOptional()
  @IsObject()
  labels?: Record<string, unknown>;
}

/** `{ ...base, k0: 0, …, k<count-1>: 0 }`. */
function manyKeys(count: number, base: Record<string, unknown> = {}): Record<string, unknown> {
  const value: Record<string, unknown> = { ...base };
  for (let index = 0; index < count; index++) value[`k${index}`] = 0;
  return value;
}

describe('compileSchema (DTO class): hostile arguments stay cheap (issue #13)', () => {
  const tooMany = `must NOT have more than ${MAX_DTO_OBJECT_KEYS} properties`;

  it('300,000 extra keys → one issue, in time linear in the keys (class-transformer is quadratic in them)', () => {
    const compiled = compileSchema(CodeDto, options);
    const inputs = { small: manyKeys(30_000, { code: 'abc' }), large: manyKeys(300_000, { code: 'abc' }) };

    expect(sync(compiled.validate(inputs.large))).toEqual({ valid: false, issues: [{ path: '', message: tooMany }] });
    // Ten times the keys: about ten times the work (counting them), never a hundred (class-transformer's copy).
    expect(growthRatio((size) => sync(compiled.validate(inputs[size])))).toBeLessThan(35);
  });

  it('names a crowded nested object, in objects and in arrays', () => {
    const compiled = compileSchema(CreateTaskDto, options);

    expect(sync(compiled.validate({ title: 't', tags: [], owner: manyKeys(MAX_DTO_OBJECT_KEYS + 1) }))).toEqual({
      valid: false,
      issues: [{ path: '/owner', message: tooMany }],
    });
    expect(
      sync(compiled.validate({ title: 't', tags: [{ name: 'a' }, manyKeys(MAX_DTO_OBJECT_KEYS + 1, { name: 'b' })] })),
    ).toEqual({
      valid: false,
      issues: [{ path: '/tags/1', message: tooMany }],
    });
  });

  it(`still accepts ${MAX_DTO_OBJECT_KEYS} keys, extra ones stripped as before`, () => {
    const compiled = compileSchema<CodeDto>(CodeDto, options);
    const outcome = sync(
      compiled.validate(manyKeys(MAX_DTO_OBJECT_KEYS - 2, { code: 'abc', labels: manyKeys(MAX_DTO_OBJECT_KEYS) })),
    );

    expect(outcome.valid).toBe(true);
    if (!outcome.valid) return;
    expect(Object.keys(outcome.value)).toEqual(['code', 'labels']);
    expect(Object.keys(outcome.value.labels!)).toHaveLength(MAX_DTO_OBJECT_KEYS);
  });

  it('does not bound a handler’s own output (role output)', () => {
    const outcome = sync(
      compileSchema(CodeDto, { role: 'output', owner: "tool 'code'" }).validate({
        code: 'abc',
        labels: manyKeys(2_000),
      }),
    );

    expect(outcome.valid).toBe(true);
  });

  it('1,000,000 strings for an integer array → one issue', () => {
    const outcome = sync(
      compileSchema(SamplesDto, options).validate({ values: Array.from({ length: 1_000_000 }, () => 'x') }),
    );

    expect(outcome).toEqual({
      valid: false,
      issues: [{ path: '/values', message: 'each value in values must be an integer number' }],
    });
  });

  it('20,000 invalid nested items → the first MAX_SCHEMA_ISSUES issues, the rest counted', () => {
    const outcome = sync(
      compileSchema(PathDto, options).validate({ points: Array.from({ length: 20_000 }, () => ({ x: -1 })) }),
    );

    expect(outcome).toMatchObject({ valid: false, omitted: 20_000 - MAX_SCHEMA_ISSUES });
    if (outcome.valid) return;
    expect(outcome.issues).toHaveLength(MAX_SCHEMA_ISSUES);
    expect(outcome.issues[0]).toEqual({ path: '/points/0/x', message: 'x must not be less than 0' });
  });

  it('stops at the first failed constraint of a property, so @ArrayMaxSize skips the nested items', () => {
    expect(sync(compileSchema(CodeDto, options).validate({ code: 5 }))).toEqual({
      valid: false,
      issues: [{ path: '/code', message: 'code must be longer than or equal to 3 characters' }],
    });
    const started = performance.now();
    const outcome = sync(
      compileSchema(PathDto, options).validate({ points: Array.from({ length: 200_000 }, () => ({})) }),
    );

    expect(outcome).toEqual({
      valid: false,
      issues: [{ path: '/points', message: 'points must contain no more than 100000 elements' }],
    });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
