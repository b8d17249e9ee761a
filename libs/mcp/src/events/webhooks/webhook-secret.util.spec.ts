import { describe, expect, it } from 'vitest';
import { McpError } from '../../protocol/mcp.error.js';
import { checkWebhookSecret } from './webhook-secret.util.js';

const of = (bytes: number) => `whsec_${Buffer.alloc(bytes, 3).toString('base64')}`;

describe('checkWebhookSecret (SEP-3415 "Secret generation")', () => {
  it('accepts whsec_ + canonical base64 of 24 to 64 bytes (the Standard Webhooks test secret is 24)', () => {
    for (const secret of ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', of(24), of(32), of(64)])
      expect(checkWebhookSecret(secret)).toBe(secret);
  });

  it.each([
    ['23 bytes', of(23)],
    ['65 bytes', of(65)],
    ['no prefix', of(32).slice(6)],
    ['non-canonical base64', `whsec_${Buffer.alloc(25, 1).toString('base64').replace(/Q==$/, 'R==')}`],
    ['base64url', `whsec_${Buffer.alloc(30, 255).toString('base64url')}`],
    ['a number', 42],
  ])('refuses %s with -32602, without repeating it', (_what, secret) => {
    let error: unknown;
    try {
      checkWebhookSecret(secret);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    if (typeof secret === 'string') expect((error as McpError).message).not.toContain(secret.slice(6));
  });
});
