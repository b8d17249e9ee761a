import { describe, expect, it } from 'vitest';
import { McpAuthError, challengeHeaders } from './access-token.interface.js';
import { McpErrorCode } from './error-codes.enum.js';
import { McpError } from './mcp.error.js';

describe('challengeHeaders', () => {
  it('gives an authorization failure its bearer challenge as WWW-Authenticate', () => {
    const error = new McpAuthError(403, 'Insufficient scope', 'Bearer error="insufficient_scope", scope="a"');
    expect(challengeHeaders(error)).toEqual({ 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="a"' });
  });

  it('gives any other error no header', () => {
    expect(challengeHeaders(new McpError(McpErrorCode.InvalidParams, 'bad'))).toEqual({});
    expect(challengeHeaders(new Error('plain'))).toEqual({});
  });
});
