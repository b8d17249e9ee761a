import { describe, expect, it } from 'vitest';
import { exceedsJsonBytes } from './json-size.util.js';

describe('exceedsJsonBytes', () => {
  it.each([
    ['an empty object', {}],
    [
      'nested values',
      { protocolVersion: '2025-11-25', capabilities: { roots: { listChanged: true }, n: [1, 2.5, null, false] } },
    ],
    ['multi-byte text', { name: 'héllo 😀 wörld' }],
    ['an array of empty objects', Array.from({ length: 100 }, () => ({}))],
  ])('measures %s as its JSON text: exactly at the limit is not over it', (_label, value) => {
    const length = Buffer.byteLength(JSON.stringify(value), 'utf8');
    expect(exceedsJsonBytes(value, length)).toBe(false);
    expect(exceedsJsonBytes(value, length - 1)).toBe(true);
  });

  it('stops early on a long array: a million elements cost about as much as the limit', () => {
    const huge: Record<string, unknown> = { junk: Array.from({ length: 1_000_000 }, () => ({})) };
    const started = performance.now();
    expect(exceedsJsonBytes(huge, 8192)).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('stops early on a long string without counting it', () => {
    expect(exceedsJsonBytes({ s: 'x'.repeat(10_000_000) }, 8192)).toBe(true);
  });
});
