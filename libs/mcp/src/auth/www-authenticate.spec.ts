import { describe, expect, it } from 'vitest';
import { buildBearerChallenge } from './www-authenticate.js';

const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

describe('buildBearerChallenge', () => {
  it('names the metadata alone for a request without credentials', () => {
    expect(buildBearerChallenge({ resourceMetadata: PRM })).toBe(`Bearer resource_metadata="${PRM}"`);
  });

  it('adds the scopes, without offline_access, duplicates or invalid tokens', () => {
    expect(
      buildBearerChallenge({
        resourceMetadata: PRM,
        scopes: ['files:read', 'offline_access', 'files:read', 'a b', 'x"y', 'files:write'],
      }),
    ).toBe(`Bearer resource_metadata="${PRM}", scope="files:read files:write"`);
    expect(buildBearerChallenge({ resourceMetadata: PRM, scopes: ['offline_access'] })).toBe(
      `Bearer resource_metadata="${PRM}"`,
    );
  });

  it('adds the error and its description', () => {
    expect(
      buildBearerChallenge({
        resourceMetadata: PRM,
        scopes: ['files:write'],
        error: 'insufficient_scope',
        errorDescription: 'This tool needs files:write',
      }),
    ).toBe(
      `Bearer resource_metadata="${PRM}", scope="files:write", error="insufficient_scope", ` +
        'error_description="This tool needs files:write"',
    );
  });

  it('reduces the description to the characters RFC 6750 allows, so nothing breaks out of the header', () => {
    const header = buildBearerChallenge({
      resourceMetadata: PRM,
      error: 'invalid_token',
      errorDescription: 'bad "token"\\ here\r\nSet-Cookie: x=1 – é',
    });
    expect(header).toBe(
      `Bearer resource_metadata="${PRM}", error="invalid_token", error_description="bad 'token'/ here  Set-Cookie: x=1"`,
    );
    const description = /error_description="([^"]*)"/.exec(header)?.[1] ?? '';
    expect(description).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
    expect(description).toContain("bad 'token'/ here");
    expect(header).not.toMatch(/[\r\n]/);
  });

  it('escapes quotes and backslashes in quoted values and drops control characters', () => {
    expect(buildBearerChallenge({ resourceMetadata: 'https://x/a"b\\c\r\n' })).toBe(
      'Bearer resource_metadata="https://x/a\\"b\\\\c"',
    );
  });

  it('leaves out a description without an error, and an error code that is not one', () => {
    expect(buildBearerChallenge({ resourceMetadata: PRM, errorDescription: 'alone' })).toBe(
      `Bearer resource_metadata="${PRM}"`,
    );
    expect(buildBearerChallenge({ resourceMetadata: PRM, error: 'bad"code' })).toBe(
      `Bearer resource_metadata="${PRM}"`,
    );
  });

  it('shortens a very long description', () => {
    const header = buildBearerChallenge({
      resourceMetadata: PRM,
      error: 'invalid_token',
      errorDescription: 'x'.repeat(1000),
    });
    expect(/error_description="([^"]*)"/.exec(header)?.[1]).toHaveLength(300);
  });
});
