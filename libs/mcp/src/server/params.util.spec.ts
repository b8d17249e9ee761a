import { describe, expect, it } from 'vitest';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { optionalObject, requireString } from './params.util.js';

const invalidParams = (message: string) =>
  expect.objectContaining({ code: McpErrorCode.InvalidParams, message, httpStatus: 200 });

describe('requireString', () => {
  it('returns a non-empty string param', () => {
    expect(requireString({ name: 'deploy' }, 'name')).toBe('deploy');
  });

  it.each([undefined, '', 42, null, ['deploy'], { name: 'deploy' }])(
    'refuses %j with -32602 naming the field',
    (value) => {
      expect(() => requireString({ name: value }, 'name')).toThrow(
        invalidParams('Invalid params: "name" must be a non-empty string'),
      );
    },
  );
});

describe('optionalObject', () => {
  it('returns the object itself, and {} for an absent or null field', () => {
    const args = { a: 1 };
    expect(optionalObject({ arguments: args }, 'arguments')).toBe(args);
    expect(optionalObject({}, 'arguments')).toEqual({});
    expect(optionalObject({ arguments: null }, 'arguments')).toEqual({});
  });

  it.each(['text', 0, false, [1, 2]])('refuses %j with -32602 naming the field', (value) => {
    expect(() => optionalObject({ arguments: value }, 'arguments')).toThrow(
      invalidParams('Invalid params: "arguments" must be an object'),
    );
  });
});
