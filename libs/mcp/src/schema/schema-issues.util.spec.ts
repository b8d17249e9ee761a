import { describe, expect, it } from 'vitest';
import {
  appendPointer,
  formatIssues,
  formatKeys,
  keepIssues,
  MAX_ISSUES_TEXT,
  MAX_SCHEMA_ISSUES,
  truncateText,
} from './schema-issues.util.js';

describe('formatIssues', () => {
  it('renders issues on one line, paths without their leading slash', () => {
    expect(
      formatIssues([
        { path: '/a', message: 'must be number' },
        { path: '/b', message: 'is required' },
        { path: '/items/0/name', message: 'must be string' },
      ]),
    ).toBe('a: must be number; b: is required; items/0/name: must be string');
  });

  it('shows only the message for a root issue, and nothing for no issues', () => {
    expect(formatIssues([{ path: '', message: 'must be an object' }])).toBe('must be an object');
    expect(formatIssues([])).toBe('');
  });

  it('keeps a class-validator property name once', () => {
    expect(formatIssues([{ path: '/lines/0/quantity', message: 'quantity must not be less than 1' }])).toBe(
      'lines/0/quantity: must not be less than 1',
    );
  });

  it('counts omitted issues in a closing "…and N more"', () => {
    expect(formatIssues([{ path: '/values/0', message: 'must be integer' }], 999_999)).toBe(
      'values/0: must be integer; …and 999999 more',
    );
  });

  it('truncates a 10,000-character key, a long path and a long message', () => {
    const key = `secret${'k'.repeat(10_000)}`;
    const text = formatIssues([
      { path: appendPointer('', key), message: 'is not allowed' },
      { path: appendPointer('', ...Array.from({ length: 60 }, () => 'level')), message: 'x'.repeat(5_000) },
    ]);

    expect(text).toMatch(/^secretk{57}…: is not allowed; (level\/)+l?e?v?e?l?…: x{255}…$/);
    expect(text.length).toBeLessThan(700);
  });

  it(`stays within ${MAX_ISSUES_TEXT} characters whatever the issues, counting those left out`, () => {
    const issues = Array.from({ length: 1_000 }, (_, index) => ({
      path: appendPointer('', 'p'.repeat(500), index),
      message: 'm'.repeat(500),
    }));
    const text = formatIssues(issues);

    expect(text.length).toBeLessThanOrEqual(MAX_ISSUES_TEXT);
    expect(text).toMatch(/; …and \d+ more$/);
    const shown = text.split('; ').length - 1;
    expect(text).toContain(`…and ${1_000 - shown} more`);
    expect(formatIssues(issues, 0, 100).length).toBeLessThanOrEqual(100);
  });
});

describe('formatKeys', () => {
  it('lists own keys', () => {
    expect(formatKeys({ a: 1, b: 2 })).toBe('a, b');
    expect(formatKeys(Object.create({ inherited: 1 }) as object)).toBe('');
  });

  it(`lists at most ${MAX_SCHEMA_ISSUES} keys, each cut to 64 characters, and counts the rest`, () => {
    const value: Record<string, number> = { ['x'.repeat(10_000)]: 0 };
    for (let index = 0; index < 300_000; index++) value[`k${index}`] = 0;
    const text = formatKeys(value);

    expect(text).toBe(`${'x'.repeat(63)}…, k0, k1, k2, k3, k4, k5, k6, k7, k8, …and 299991 more`);
  });
});

describe('keepIssues', () => {
  it(`maps at most ${MAX_SCHEMA_ISSUES} failures and counts the rest`, () => {
    let mapped = 0;
    const outcome = keepIssues(
      Array.from({ length: 1_000_000 }, (_, index) => index),
      (index) => {
        mapped++;
        return { path: `/${index}`, message: 'bad' };
      },
    );

    expect(mapped).toBe(MAX_SCHEMA_ISSUES);
    expect(outcome).toMatchObject({ valid: false, omitted: 1_000_000 - MAX_SCHEMA_ISSUES });
    expect(keepIssues([1], () => ({ path: '', message: 'bad' }))).toEqual({
      valid: false,
      issues: [{ path: '', message: 'bad' }],
    });
  });
});

describe('truncateText', () => {
  it('cuts with an ellipsis, never inside a surrogate pair', () => {
    expect(truncateText('abcdef', 6)).toBe('abcdef');
    expect(truncateText('abcdef', 4)).toBe('abc…');
    expect(truncateText('ab😀cd', 4)).toBe('ab…');
  });
});

describe('appendPointer', () => {
  it('escapes reference tokens (RFC 6901)', () => {
    expect(appendPointer('', 'items', 0, 'a/b', 'c~d')).toBe('/items/0/a~1b/c~0d');
    expect(appendPointer('/x')).toBe('/x');
  });
});
