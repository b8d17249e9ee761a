import { describe, expect, it } from 'vitest';
import { appendPointer, formatIssues } from './schema-issues.util.js';

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
});

describe('appendPointer', () => {
  it('escapes reference tokens (RFC 6901)', () => {
    expect(appendPointer('', 'items', 0, 'a/b', 'c~d')).toBe('/items/0/a~1b/c~0d');
    expect(appendPointer('/x')).toBe('/x');
  });
});
