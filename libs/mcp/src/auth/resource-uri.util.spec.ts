import { describe, expect, it } from 'vitest';
import { audienceIncludes, isLoopbackHostname, isSameResource, normalizeResourceUri } from './resource-uri.util.js';

describe('resource URIs', () => {
  it('compares scheme and host case-insensitively, the path exactly (T-AUTH-11)', () => {
    expect(isSameResource('HTTPS://MCP.Example.COM/mcp', 'https://mcp.example.com/mcp')).toBe(true);
    expect(isSameResource('https://mcp.example.com:443/mcp', 'https://mcp.example.com/mcp')).toBe(true);
    expect(isSameResource('https://mcp.example.com/MCP', 'https://mcp.example.com/mcp')).toBe(false);
    expect(isSameResource('https://mcp.example.com/mcp/', 'https://mcp.example.com/mcp')).toBe(false);
    expect(isSameResource('http://mcp.example.com/mcp', 'https://mcp.example.com/mcp')).toBe(false);
    expect(isSameResource('not a url', 'not a url')).toBe(false);
    expect(normalizeResourceUri(42)).toBeUndefined();
  });

  it('finds the resource in a string or array audience, and nothing in other shapes', () => {
    expect(audienceIncludes('https://mcp.example.com/mcp', 'https://mcp.example.com/mcp')).toBe(true);
    expect(
      audienceIncludes(['https://other.example.com', 'HTTPS://MCP.EXAMPLE.COM/mcp'], 'https://mcp.example.com/mcp'),
    ).toBe(true);
    expect(audienceIncludes(['https://other.example.com'], 'https://mcp.example.com/mcp')).toBe(false);
    expect(audienceIncludes(undefined, 'https://mcp.example.com/mcp')).toBe(false);
    expect(audienceIncludes({ aud: 'https://mcp.example.com/mcp' }, 'https://mcp.example.com/mcp')).toBe(false);
  });

  it('knows the loopback hosts', () => {
    expect(['localhost', '127.0.0.1', '127.9.8.7', '[::1]'].every(isLoopbackHostname)).toBe(true);
    expect(['example.com', '127.example.com', '10.0.0.1', 'localhost.example.com'].some(isLoopbackHostname)).toBe(
      false,
    );
  });
});
