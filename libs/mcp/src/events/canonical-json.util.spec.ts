import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.util.js';

describe('canonicalJson', () => {
  it('sorts object keys recursively and drops whitespace, keeping array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });

  it('writes scalars as JSON does', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson('é"')).toBe('"é\\""');
    expect(canonicalJson(1.5)).toBe('1.5');
    expect(canonicalJson([true, false])).toBe('[true,false]');
  });
});
