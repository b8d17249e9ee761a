import { describe, expect, it } from 'vitest';
import { authorizationServerMetadataUrls } from './authorization-server-metadata.js';

describe('authorizationServerMetadataUrls', () => {
  it('tries RFC 8414 then OpenID Connect for an issuer without a path', () => {
    expect(authorizationServerMetadataUrls('https://id.example.com')).toEqual([
      'https://id.example.com/.well-known/oauth-authorization-server',
      'https://id.example.com/.well-known/openid-configuration',
    ]);
    expect(authorizationServerMetadataUrls('https://id.example.com/')).toHaveLength(2);
  });

  it('inserts the well-known path for an issuer with a path, then appends the OpenID Connect one', () => {
    expect(authorizationServerMetadataUrls('https://id.example.com/realms/mcp')).toEqual([
      'https://id.example.com/.well-known/oauth-authorization-server/realms/mcp',
      'https://id.example.com/.well-known/openid-configuration/realms/mcp',
      'https://id.example.com/realms/mcp/.well-known/openid-configuration',
    ]);
  });
});
