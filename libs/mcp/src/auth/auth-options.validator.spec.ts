import { describe, expect, it } from 'vitest';
import type { McpAuthOptions } from '../config/mcp-options.interface.js';
import { validateAuthOptions } from './auth-options.validator.js';

const valid: McpAuthOptions = {
  resource: 'https://mcp.example.com/mcp',
  authorizationServers: ['https://id.example.com'],
};
const refusal = (options: unknown) => {
  try {
    validateAuthOptions(options);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('validateAuthOptions', () => {
  it('accepts a minimal configuration and returns a copy', () => {
    const input = { ...valid, authorizationServers: [...valid.authorizationServers], scopesSupported: ['mcp:read'] };
    const result = validateAuthOptions(input);
    expect(result).toEqual(input);
    input.authorizationServers.push('https://evil.example.com');
    input.scopesSupported.push('mcp:admin');
    expect(result.authorizationServers).toEqual(['https://id.example.com']);
    expect(result.scopesSupported).toEqual(['mcp:read']);
  });

  it('accepts plain http on loopback hosts only', () => {
    expect(() =>
      validateAuthOptions({
        resource: 'http://127.0.0.1:3000/mcp',
        authorizationServers: ['http://localhost:9000/realms/x'],
      }),
    ).not.toThrow();
    expect(refusal({ ...valid, resource: 'http://mcp.example.com/mcp' })).toBe(
      'McpModule: option "auth.resource" must use https (plain http is accepted on loopback hosts only), got "http://mcp.example.com/mcp"',
    );
    expect(refusal({ ...valid, authorizationServers: ['http://id.example.com'] })).toContain(
      '"auth.authorizationServers[0]" must use https',
    );
  });

  it('refuses a resource that is not an absolute http(s) URL, or has a fragment or query', () => {
    expect(refusal({ ...valid, resource: '/mcp' })).toBe(
      'McpModule: option "auth.resource" must be an absolute http(s) URL, got "/mcp"',
    );
    expect(refusal({ ...valid, resource: 'urn:mcp' })).toContain('must be an absolute http(s) URL');
    expect(refusal({ ...valid, resource: 'https://mcp.example.com/mcp#x' })).toBe(
      'McpModule: option "auth.resource" must not have a fragment',
    );
    expect(refusal({ ...valid, resource: 'https://mcp.example.com/mcp?a=1' })).toBe(
      'McpModule: option "auth.resource" must not have a query',
    );
    expect(refusal({ ...valid, resource: 'https://u:p@mcp.example.com/mcp' })).toBe(
      'McpModule: option "auth.resource" must not hold credentials',
    );
  });

  it('requires at least one authorization server', () => {
    expect(refusal({ ...valid, authorizationServers: [] })).toBe(
      'McpModule: option "auth.authorizationServers" must list at least one issuer URL',
    );
    expect(refusal({ resource: valid.resource })).toContain(
      '"auth.authorizationServers" must list at least one issuer URL',
    );
    expect(refusal(undefined)).toContain('option "auth" must be an object');
  });

  it('refuses two ways of verifying tokens', () => {
    const verifier = { verify: async () => ({ subject: 's', scopes: [], claims: {} }) };
    const introspection = { endpoint: 'https://id.example.com/introspect', clientId: 'rs', clientSecret: 's3cr3t' };
    expect(refusal({ ...valid, verifier, introspection })).toContain(
      '"auth.verifier" and "auth.introspection" are exclusive',
    );
    expect(refusal({ ...valid, introspection, jwt: {} })).toContain(
      '"auth.introspection" and "auth.jwt" are exclusive',
    );
    expect(() => validateAuthOptions({ ...valid, verifier })).not.toThrow();
    expect(refusal({ ...valid, verifier: {} })).toContain(
      '"auth.verifier" must be an object with a verify(token) method',
    );
  });

  it('refuses none and HMAC algorithms', () => {
    expect(refusal({ ...valid, jwt: { algorithms: ['RS256', 'none', 'HS256'] } })).toContain('not "none", "HS256"');
    expect(refusal({ ...valid, jwt: { algorithms: [] } })).toContain('must list at least one algorithm');
    expect(() =>
      validateAuthOptions({ ...valid, jwt: { algorithms: ['ES256', 'EdDSA'], clockToleranceSec: 0 } }),
    ).not.toThrow();
    expect(refusal({ ...valid, jwt: { clockToleranceSec: -1 } })).toContain('"auth.jwt.clockToleranceSec"');
    expect(refusal({ ...valid, jwt: { jwksUri: 'http://keys.example.com/jwks' } })).toContain(
      '"auth.jwt.jwksUri" must use https',
    );
  });

  it('checks the introspection options without echoing the secret', () => {
    const message = refusal({
      ...valid,
      introspection: {
        endpoint: 'http://id.example.com/introspect',
        clientId: '',
        clientSecret: 'hunter2',
        cacheTtlMs: 1.5,
      },
    });
    expect(message).toContain('"auth.introspection.endpoint" must use https');
    expect(message).toContain('"auth.introspection.clientId" must be a non-empty string');
    expect(message).toContain('"auth.introspection.cacheTtlMs" must be a whole number');
    expect(message).not.toContain('hunter2');
  });

  it('checks scopes, the hierarchy and the principal function, listing every problem at once', () => {
    const message = refusal({
      ...valid,
      scopesSupported: ['ok', 'not ok'],
      scopeHierarchy: { admin: ['write', 3] },
      principal: 'sub',
      resourceDocumentation: 'docs',
    });
    expect(message.split('\n')).toEqual([
      'McpModule: invalid "auth" options:',
      '  - "auth.scopesSupported" must be an array of scopes (printable ASCII without spaces, quotes or backslashes)',
      '  - "auth.scopeHierarchy["admin"]" must be an array of scopes (printable ASCII without spaces, quotes or backslashes)',
      '  - "auth.principal" must be a function (token) => string',
      '  - "auth.resourceDocumentation" must be an absolute http(s) URL, got "docs"',
    ]);
  });
});
