import { describe, expect, it } from 'vitest';
import { jsonNestingDepth } from './json-nesting.util.js';

describe('jsonNestingDepth', () => {
  it.each([
    ['1', 0],
    ['{}', 1],
    ['{"a":[1,{"b":2}]}', 3],
    ['[[[]],[]]', 3],
    ['"[[[[" ', 0],
    ['{"a":"\\"[[[{{"}', 1],
  ])('%s → %i', (text, depth) => {
    expect(jsonNestingDepth(text)).toBe(depth);
  });

  it('counts deep nesting without recursion', () => {
    expect(jsonNestingDepth('['.repeat(100_000) + ']'.repeat(100_000))).toBe(100_000);
  });
});
