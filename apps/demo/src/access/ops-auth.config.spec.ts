import { describe, expect, it } from 'vitest';
import { opsAuthOptions } from './ops-auth.config.js';

describe("opsAuthOptions (the console's `auth` from its environment)", () => {
  it('is off without AUTH_ISSUER, and --auth without one is a clear startup error', () => {
    expect(opsAuthOptions({})).toBeUndefined();
    expect(opsAuthOptions({ AUTH_ISSUER: ' , ' })).toBeUndefined();
    expect(() => opsAuthOptions({}, ['--auth'])).toThrow('--auth needs AUTH_ISSUER');
  });

  it("trusts every listed issuer, for the console's own URL, with the ops scopes and their hierarchy", () => {
    expect(
      opsAuthOptions({
        AUTH_ISSUER: 'https://a.example.com, https://b.example.com/realms/ops',
        PORT: '8080',
        HOST: 'mcp.local',
      }),
    ).toEqual({
      resource: 'http://mcp.local:8080/mcp',
      authorizationServers: ['https://a.example.com', 'https://b.example.com/realms/ops'],
      scopesSupported: ['ops:read', 'ops:write'],
      scopeHierarchy: { 'ops:admin': ['ops:write'], 'ops:write': ['ops:read'] },
      resourceName: 'Operations console',
    });
  });

  it('names loopback for a wildcard host, takes AUTH_RESOURCE as given, and refuses a port it cannot know', () => {
    expect(opsAuthOptions({ AUTH_ISSUER: 'http://127.0.0.1:9000', HOST: '0.0.0.0' })?.resource).toBe(
      'http://127.0.0.1:3000/mcp',
    );
    expect(opsAuthOptions({ AUTH_ISSUER: 'http://127.0.0.1:9000', HOST: '::1', PORT: '4000' })?.resource).toBe(
      'http://[::1]:4000/mcp',
    );
    const explicit = opsAuthOptions({
      AUTH_ISSUER: 'https://id.example.com',
      AUTH_RESOURCE: 'https://mcp.example.com/mcp',
      PORT: '0',
    });
    expect(explicit?.resource).toBe('https://mcp.example.com/mcp');
    expect(() => opsAuthOptions({ AUTH_ISSUER: 'https://id.example.com', PORT: '0' })).toThrow(
      'set a fixed PORT or AUTH_RESOURCE',
    );
  });
});
