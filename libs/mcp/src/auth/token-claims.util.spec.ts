import { describe, expect, it } from 'vitest';
import { clientIdOfClaims, numericDateClaim, scopesOfClaims } from './token-claims.util.js';

describe('token claims', () => {
  it('reads scopes from "scope", else from "scp" (string or array)', () => {
    expect(scopesOfClaims({ scope: 'a b  a c' })).toEqual(['a', 'b', 'c']);
    expect(scopesOfClaims({ scp: 'a b' })).toEqual(['a', 'b']);
    expect(scopesOfClaims({ scp: ['a', 3, 'b', ''] })).toEqual(['a', 'b']);
    expect(scopesOfClaims({ scope: 'a', scp: ['b'] })).toEqual(['a']);
    expect(scopesOfClaims({ scope: 42 })).toEqual([]);
    expect(scopesOfClaims({})).toEqual([]);
  });

  it('reads the client from "client_id", else "azp"', () => {
    expect(clientIdOfClaims({ client_id: 'c', azp: 'z' })).toBe('c');
    expect(clientIdOfClaims({ azp: 'z' })).toBe('z');
    expect(clientIdOfClaims({ client_id: '' })).toBeUndefined();
  });

  it('reads NumericDate claims only when they are finite numbers', () => {
    expect(numericDateClaim({ exp: 10 }, 'exp')).toBe(10);
    expect(numericDateClaim({ exp: '10' }, 'exp')).toBeUndefined();
    expect(numericDateClaim({ exp: Infinity }, 'exp')).toBeUndefined();
  });
});
