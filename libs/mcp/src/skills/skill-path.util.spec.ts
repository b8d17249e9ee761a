import { describe, expect, it } from 'vitest';
import { isRegName, pathProblem, skillUri } from './skill-path.util.js';

describe('skill paths and URIs', () => {
  it('builds skill:// URIs with the first segment as authority and percent-encodes what a URI may not hold', () => {
    expect(skillUri('acme/billing/refunds')).toBe('skill://acme/billing/refunds');
    expect(skillUri('acme/billing/refunds', 'SKILL.md')).toBe('skill://acme/billing/refunds/SKILL.md');
    expect(skillUri('ops/x', 'my notes/a+b@c.md')).toBe('skill://ops/x/my%20notes/a+b@c.md');
    expect(skillUri('a@b/x')).toBe('skill://a%40b/x');
  });

  it.each([
    ['', /empty/],
    ['/abs', /empty segment/],
    ['a//b', /empty segment/],
    ['a/../b', /"\.\." segment/],
    ['a/./b', /"\." segment/],
    ['a\\b', /backslash/],
  ])('refuses the path %j', (path, problem) => {
    expect(pathProblem(path)).toMatch(problem);
  });

  it('accepts ordinary paths and tells reg-name authorities apart', () => {
    expect(pathProblem('ops/triage-incident')).toBeUndefined();
    expect(isRegName('acme.example/x')).toBe(true);
    expect(isRegName('a b/x')).toBe(true); // encoded as a%20b, a valid reg-name
  });
});
