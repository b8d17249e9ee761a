import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpTokenMessages } from '../../libs/mcp/src/auth/index.js';
import { validateAuthOptions } from '../../libs/mcp/src/auth/auth-options.validator.js';
import { ADAPTERS } from '../support/app.factory.js';
import { type AuthApp, bearer, callTool, expectRefusal, startAuthApp } from '../support/auth-app.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { expectResult, textOf } from '../support/wire-response.util.js';

/**
 * Security round 3 (issue #24), finding 12: `auth.jwt.requiredType` (opt-in) makes the JWT verifier require the
 * token's `typ` header — RFC 9068's `at+jwt`, compared case-insensitively, `application/at+jwt` too — so that an ID
 * token or another JWT the issuer signs with the same keys is no access token here. Off by default. Real tokens from
 * oidc-provider (which types its JWT access tokens `at+jwt`) and tokens signed with its key, on both adapters.
 */

const CLIENT = { clientId: 'svc-typed', clientSecret: 'typed-secret-0123456789' };

let as: TestAuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer({ confidentialClients: [CLIENT] });
});
afterAll(async () => {
  await as?.close();
});

const expectWhoami = async (app: AuthApp, token: string, principal: string) =>
  expect(textOf(expectResult(await callTool(app, 'whoami', bearer(token)), 'tools/call'))).toBe(
    `principal=${principal}`,
  );

describe.each(ADAPTERS)('auth.jwt.requiredType (%s)', (adapter) => {
  let typed: AuthApp;
  let untyped: AuthApp;

  beforeAll(async () => {
    typed = await startAuthApp(adapter, (resource) => ({
      resource,
      authorizationServers: [as.issuer],
      jwt: { requiredType: 'at+jwt' },
    }));
    untyped = await startAuthApp(adapter, (resource) => ({ resource, authorizationServers: [as.issuer] }));
  });
  afterAll(async () => {
    await Promise.all([typed?.close(), untyped?.close()]);
  });

  it("accepts the authorization server's own access tokens, and at+jwt in any case, with or without application/", async () => {
    const { access_token } = await as.clientCredentialsToken({
      resource: typed.resource,
      scope: 'mcp:read',
      ...CLIENT,
    });
    expect(JSON.parse(Buffer.from(access_token.split('.')[0], 'base64url').toString()).typ).toBe('at+jwt');
    await expectWhoami(typed, access_token, CLIENT.clientId);
    for (const type of ['application/at+jwt', 'AT+JWT', 'Application/At+Jwt']) {
      await expectWhoami(typed, await as.mintToken({ resource: typed.resource, type }), 'alice');
    }
  });

  it('refuses a JWT of another type, or of none → 401 invalid_token; the next request is served', async () => {
    const runs = typed.probe.principals.length;
    for (const type of ['JWT', 'application/jwt', 'id_token+jwt', null]) {
      const token = await as.mintToken({ resource: typed.resource, type, subject: 'mallory' });
      const params = expectRefusal(await callTool(typed, 'whoami', bearer(token)), 401, 'invalid_token');
      expect(params.error_description).toBe(McpTokenMessages.wrongType);
    }
    expect(typed.probe.principals.length).toBe(runs);
    await expectWhoami(typed, await as.mintToken({ resource: typed.resource }), 'alice');
  });

  it('is off by default: a token typed JWT, or untyped, is accepted', async () => {
    await expectWhoami(untyped, await as.mintToken({ resource: untyped.resource, type: 'JWT' }), 'alice');
    await expectWhoami(untyped, await as.mintToken({ resource: untyped.resource, type: null }), 'alice');
  });
});

describe('auth.jwt.requiredType at startup', () => {
  it('must be a media type', () => {
    const base = { resource: 'http://127.0.0.1:1/mcp', authorizationServers: ['http://127.0.0.1:2'] };
    for (const requiredType of ['', 'at jwt', 42, 'a/b/c']) {
      expect(() => validateAuthOptions({ ...base, jwt: { requiredType } })).toThrow(
        /"auth\.jwt\.requiredType" must be a JWT type/,
      );
    }
    expect(validateAuthOptions({ ...base, jwt: { requiredType: 'application/at+jwt' } }).jwt?.requiredType).toBe(
      'application/at+jwt',
    );
  });
});
