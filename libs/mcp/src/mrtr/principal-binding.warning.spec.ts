import { describe, expect, it } from 'vitest';
import { principalBindingWarning, type PrincipalBindingFacts } from './principal-binding.warning.js';

const BASE: PrincipalBindingFacts = { hasPrincipal: false, servesHttp: true, legacyWire: true, hasHandlers: true };

describe('principalBindingWarning', () => {
  it('HTTP, no principal, sessions on: names states and sessions, and how to set principal', () => {
    expect(principalBindingWarning(BASE)).toBe(
      'No principal resolver is configured: requestState values (multi-round calls) and 2025-11-25 sessions are not bound ' +
        'to a caller, so whoever obtains one can continue it. Set the McpModule option "principal" from your ' +
        'authentication, e.g. principal: (request) => request.user?.sub.',
    );
  });

  it('sessions off but handlers present: names requestState only', () => {
    const warning = principalBindingWarning({ ...BASE, legacyWire: false });
    expect(warning).toMatch(
      /^No principal resolver is configured: requestState values \(multi-round calls\) are not bound to a caller/,
    );
    expect(warning).not.toMatch(/sessions/);
  });

  it('sessions on and no handler yet: still warns (sessions)', () => {
    expect(principalBindingWarning({ ...BASE, hasHandlers: false })).toMatch(/sessions are not bound/);
  });

  it.each<[string, Partial<PrincipalBindingFacts>]>([
    ['a principal is configured', { hasPrincipal: true }],
    ['no HTTP server (stdio)', { servesHttp: false }],
    ['neither sessions nor handlers', { legacyWire: false, hasHandlers: false }],
  ])('silent when %s', (_label, facts) => {
    expect(principalBindingWarning({ ...BASE, ...facts })).toBeUndefined();
  });
});
