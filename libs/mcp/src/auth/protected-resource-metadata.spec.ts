import { describe, expect, it } from 'vitest';
import {
  buildProtectedResourceMetadata,
  protectedResourceMetadataLocation,
  protectedResourceMetadataUrl,
} from './protected-resource-metadata.js';

describe('buildProtectedResourceMetadata', () => {
  it('publishes the resource, its authorization servers and header-only bearer tokens', () => {
    expect(
      buildProtectedResourceMetadata({
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://id.example.com'],
      }),
    ).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://id.example.com'],
      bearer_methods_supported: ['header'],
    });
  });

  it('advertises the supported scopes without offline_access, and the name and documentation', () => {
    expect(
      buildProtectedResourceMetadata({
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://a.example.com', 'https://b.example.com/tenant'],
        scopesSupported: ['mcp:read', 'offline_access', 'mcp:read', 'mcp:write'],
        resourceName: 'Deployments',
        resourceDocumentation: 'https://docs.example.com/mcp',
      }),
    ).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://a.example.com', 'https://b.example.com/tenant'],
      scopes_supported: ['mcp:read', 'mcp:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Deployments',
      resource_documentation: 'https://docs.example.com/mcp',
    });
  });
});

describe('protectedResourceMetadataLocation', () => {
  it('inserts the well-known path between the host and the resource path (RFC 9728 §3.1)', () => {
    expect(protectedResourceMetadataLocation('https://mcp.example.com/mcp')).toEqual({
      path: '/.well-known/oauth-protected-resource/mcp',
      url: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
      rootPath: '/.well-known/oauth-protected-resource',
      rootUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource',
    });
    expect(protectedResourceMetadataUrl('http://127.0.0.1:8080/api/v1/mcp')).toBe(
      'http://127.0.0.1:8080/.well-known/oauth-protected-resource/api/v1/mcp',
    );
  });

  it('has one location for a resource at the root of its host', () => {
    const location = protectedResourceMetadataLocation('https://mcp.example.com');
    expect(location.path).toBe(location.rootPath);
    expect(location.url).toBe('https://mcp.example.com/.well-known/oauth-protected-resource');
  });

  it('uses the normalized origin (lower-case host, no default port)', () => {
    expect(protectedResourceMetadataUrl('HTTPS://MCP.Example.COM:443/mcp')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    );
  });
});
