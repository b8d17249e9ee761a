import { describe, expect, it } from 'vitest';
import { McpScopeMatcher } from './scope.matcher.js';

describe('McpScopeMatcher', () => {
  const matcher = new McpScopeMatcher({
    'deploy:admin': ['deploy:write', 'audit:read'],
    'deploy:write': ['deploy:read'],
  });

  it('judges plain scopes without a hierarchy', () => {
    const plain = new McpScopeMatcher();
    expect(plain.satisfies(['a', 'b'], ['a'])).toBe(true);
    expect(plain.satisfies(['a'], ['a', 'b'])).toBe(false);
    expect(plain.satisfies([], [])).toBe(true);
    expect(plain.missing(['a'], ['b', 'a', 'c', 'b'])).toEqual(['b', 'c']);
  });

  it('lets a broader scope satisfy narrower ones, transitively', () => {
    expect(matcher.satisfies(['deploy:admin'], ['deploy:read'])).toBe(true);
    expect(matcher.satisfies(['deploy:admin'], ['deploy:write', 'audit:read', 'deploy:admin'])).toBe(true);
    expect(matcher.satisfies(['deploy:write'], ['deploy:read'])).toBe(true);
    expect([...matcher.expand(['deploy:admin'])].sort()).toEqual([
      'audit:read',
      'deploy:admin',
      'deploy:read',
      'deploy:write',
    ]);
  });

  it('never lets a narrower scope satisfy a broader one', () => {
    expect(matcher.satisfies(['deploy:read'], ['deploy:write'])).toBe(false);
    expect(matcher.missing(['deploy:write'], ['deploy:admin', 'deploy:read', 'audit:read'])).toEqual([
      'deploy:admin',
      'audit:read',
    ]);
  });

  it('accepts cycles: scopes on a cycle imply each other', () => {
    const cyclic = new McpScopeMatcher({ a: ['b'], b: ['c'], c: ['a'], d: ['d'] });
    expect(cyclic.satisfies(['b'], ['a', 'c'])).toBe(true);
    expect(cyclic.satisfies(['d'], ['d'])).toBe(true);
    expect(cyclic.satisfies(['d'], ['a'])).toBe(false);
  });

  it('ignores inherited object keys as scopes', () => {
    expect(matcher.satisfies(['constructor'], ['deploy:read'])).toBe(false);
    expect(matcher.missing(['toString'], ['toString'])).toEqual([]);
  });
});
