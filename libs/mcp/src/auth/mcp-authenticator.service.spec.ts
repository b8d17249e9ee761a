import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolvedOptions } from '../../../../test/support/resolved-options.factory.js';
import type { McpAuthOptions } from '../config/mcp-options.interface.js';
import {
  type McpAccessToken,
  McpAuthError,
  McpTokenError,
  type McpTokenVerifier,
} from '../protocol/access-token.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { McpAuthenticator } from './mcp-authenticator.service.js';

const RESOURCE = 'https://mcp.example.com/mcp';
const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';

/** A verifier of the application's own (the `auth.verifier` option): accepts TOKEN as alice, refuses the rest. */
class TableVerifier implements McpTokenVerifier {
  async verify(token: string): Promise<McpAccessToken> {
    if (token === TOKEN)
      return { subject: 'alice', scopes: ['mcp:read'], clientId: 'app', claims: { sub: 'alice', tenant: 't1' } };
    throw new McpTokenError('The token expired');
  }
}

function authenticator(auth: Partial<McpAuthOptions> = {}): McpAuthenticator {
  return new McpAuthenticator(
    resolvedOptions({
      auth: {
        resource: RESOURCE,
        authorizationServers: ['https://id.example.com'],
        scopesSupported: ['mcp:read'],
        verifier: new TableVerifier(),
        ...auth,
      },
    }),
  );
}

async function refusal(promise: Promise<unknown>): Promise<McpAuthError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpAuthError);
  return error as McpAuthError;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('McpAuthenticator', () => {
  it('is off without `auth`', () => {
    const off = new McpAuthenticator(resolvedOptions());
    expect(off.enabled).toBe(false);
    expect(off.metadataDocument()).toBeUndefined();
  });

  it('resolves a valid bearer token to its caller (the subject, or `auth.principal`)', async () => {
    await expect(authenticator().authenticate(`Bearer ${TOKEN}`, '/mcp')).resolves.toMatchObject({
      principal: 'alice',
      accessToken: { subject: 'alice' },
    });
    const mapped = authenticator({ principal: (token) => `${token.claims.tenant}:${token.subject}` });
    await expect(mapped.authenticate(`bearer   ${TOKEN}`, '/mcp')).resolves.toMatchObject({ principal: 't1:alice' });
  });

  it.each([undefined, '', '   ', 'Basic dXNlcjpwYXNz', 'Negotiate abc'])(
    'no bearer credentials (%j) → 401 without error code',
    async (header) => {
      const error = await refusal(authenticator().authenticate(header, '/mcp'));
      expect(error.httpStatus).toBe(401);
      expect(error.challenge).toBe(`Bearer resource_metadata="${PRM}", scope="mcp:read"`);
    },
  );

  it.each(['Bearer', 'Bearer a b', 'Bearer a,b', 'Bearer ==', 'Bearer\ttoken'])(
    'a malformed Bearer header (%j) → 400 invalid_request',
    async (header) => {
      const error = await refusal(authenticator().authenticate(header, '/mcp'));
      expect(error.httpStatus).toBe(400);
      expect(error.challenge).toMatch(
        /^Bearer resource_metadata="[^"]+", scope="mcp:read", error="invalid_request", error_description="/,
      );
    },
  );

  it('a token in the query string → 400 invalid_request, with or without a header; another parameter is fine', async () => {
    for (const header of [undefined, `Bearer ${TOKEN}`]) {
      const error = await refusal(authenticator().authenticate(header, `/mcp?x=1&access_token=${TOKEN}`));
      expect(error.httpStatus).toBe(400);
      expect(error.challenge).toContain('query string');
      expect(`${error.message} ${error.challenge}`).not.toContain(TOKEN);
    }
    await expect(
      authenticator().authenticate(`Bearer ${TOKEN}`, '/mcp?not_access_token_really=1'),
    ).resolves.toBeDefined();
  });

  it("a refused token → 401 invalid_token with the verifier's description, never the token", async () => {
    const error = await refusal(authenticator().authenticate('Bearer other.token.value', '/mcp'));
    expect(error.httpStatus).toBe(401);
    expect(error.challenge).toBe(
      `Bearer resource_metadata="${PRM}", scope="mcp:read", error="invalid_token", error_description="The token expired"`,
    );
    expect(error.message).toBe('Unauthorized: The token expired');
  });

  it('a verifier that fails otherwise (or resolves without a subject) refuses the token, logged once without it', async () => {
    const logged = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const broken = authenticator({ verifier: { verify: async (token) => Promise.reject(new Error(`boom ${token}`)) } });
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await refusal(broken.authenticate(`Bearer ${TOKEN}`, '/mcp'));
      expect(error.challenge).toContain('error_description="The token could not be verified"');
    }
    expect(logged).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(logged.mock.calls)).not.toContain(TOKEN);
    const empty = authenticator({ verifier: { verify: async () => ({ subject: '', scopes: [], claims: {} }) } });
    expect((await refusal(empty.authenticate(`Bearer ${TOKEN}`, '/mcp'))).httpStatus).toBe(401);
  });

  it('an `auth.principal` that throws or returns no string → 500, logged', async () => {
    vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    for (const principal of [
      () => {
        throw new Error('no');
      },
      () => 42 as unknown as string,
      () => '',
    ]) {
      const error = await authenticator({ principal })
        .authenticate(`Bearer ${TOKEN}`, '/mcp')
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).httpStatus).toBe(500);
    }
  });

  it('two Authorization headers → 400 invalid_request, whatever they hold; one of them alone is fine', async () => {
    for (const headers of [
      [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`],
      [`Bearer ${TOKEN}`, 'Basic dXNlcjpwYXNz'],
      ['', `Bearer ${TOKEN}`],
    ]) {
      const error = await refusal(authenticator().authenticate(headers, '/mcp'));
      expect(error.httpStatus).toBe(400);
      expect(error.challenge).toContain(
        'error="invalid_request", error_description="Only one Authorization header may be sent"',
      );
    }
    await expect(authenticator().authenticate([`Bearer ${TOKEN}`], '/mcp')).resolves.toMatchObject({
      principal: 'alice',
    });
  });

  it.each([
    'access%5Ftoken',
    'access%5ftoken',
    'ACCESS_TOKEN',
    'access_token%5B%5D',
    'access_token[x]',
    'acc%65ss_token',
  ])('a query token spelled %s → 400 invalid_request', async (name) => {
    const error = await refusal(authenticator().authenticate(`Bearer ${TOKEN}`, `/mcp?a=1&${name}=${TOKEN}`));
    expect(error.httpStatus).toBe(400);
    expect(error.challenge).toContain('query string');
  });

  it('with several issuers the default principal is `<issuer>#<subject>`; a token naming no issuer is refused', async () => {
    const issuers = ['https://id.example.com', 'https://other.example.com'];
    const tokenOf = (issuer?: string) => ({ subject: 'alice', scopes: [], issuer, claims: {} });
    const of = (issuer?: string) =>
      authenticator({ authorizationServers: issuers, verifier: { verify: async () => tokenOf(issuer) } });
    await expect(of('https://other.example.com').authenticate(`Bearer ${TOKEN}`, '/mcp')).resolves.toMatchObject({
      principal: 'https://other.example.com#alice',
    });
    const error = await refusal(of(undefined).authenticate(`Bearer ${TOKEN}`, '/mcp'));
    expect(error.httpStatus).toBe(401);
    expect(error.challenge).toContain('error="invalid_token", error_description="The token does not name its issuer"');
    // One issuer: the subject alone, as before.
    const single = authenticator({ verifier: { verify: async () => tokenOf('https://id.example.com') } });
    await expect(single.authenticate(`Bearer ${TOKEN}`, '/mcp')).resolves.toMatchObject({ principal: 'alice' });
  });

  it('refuses invalid `auth` options at construction (the validator of auth/)', () => {
    expect(() => authenticator({ authorizationServers: [] })).toThrow(/authorizationServers/);
  });
});
