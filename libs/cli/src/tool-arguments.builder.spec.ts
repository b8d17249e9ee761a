import { describe, expect, it } from 'vitest';
import { buildArguments, buildPromptArguments } from './tool-arguments.builder.js';

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    force: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    options: { type: 'object' },
    nullable: { type: ['string', 'null'] },
  },
};

describe('buildArguments', () => {
  it('types values by the input schema', () => {
    expect(
      buildArguments(
        [
          ['name', '007'],
          ['count', '3'],
          ['ratio', '0.5'],
          ['force', 'yes'],
          ['tags', '["a","b"]'],
          ['options', '{"deep":true}'],
          ['nullable', '42'],
        ],
        undefined,
        SCHEMA,
      ),
    ).toEqual({
      name: '007',
      count: 3,
      ratio: 0.5,
      force: true,
      tags: ['a', 'b'],
      options: { deep: true },
      nullable: '42',
    });
  });

  it('without a schema, sends what reads as JSON as JSON and the rest as text', () => {
    expect(
      buildArguments(
        [
          ['a', '3'],
          ['b', 'true'],
          ['c', 'hello'],
          ['d', '{"x":1}'],
        ],
        undefined,
      ),
    ).toEqual({ a: 3, b: true, c: 'hello', d: { x: 1 } });
  });

  it('merges --json first, --arg winning', () => {
    expect(buildArguments([['count', '2']], { count: 1, name: 'x' }, SCHEMA)).toEqual({ count: 2, name: 'x' });
  });

  it.each([
    [['count', 'three'], /count must be a number/],
    [['count', ''], /count must be a number/],
    [['force', 'maybe'], /force must be true or false/],
    [['tags', 'a,b'], /tags must be JSON/],
  ])('refuses %j', (pair, message) => {
    expect(() => buildArguments([pair as [string, string]], undefined, SCHEMA)).toThrow(message);
  });
});

describe('buildPromptArguments', () => {
  it('sends strings only', () => {
    expect(buildPromptArguments([['who', '42']], { n: 3, obj: { a: 1 }, s: 'x' })).toEqual({
      n: '3',
      obj: '{"a":1}',
      s: 'x',
      who: '42',
    });
  });
});
