import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  auth,
  ClientCredentialsProvider,
  type OAuthClientProvider,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildProtectedResourceMetadata,
  fetchAuthorizationServerMetadata,
  IntrospectionTokenVerifier,
  JwtTokenVerifier,
  McpTokenMessages,
  protectedResourceMetadataLocation,
} from '../../libs/mcp/src/auth/index.js';
import type { McpAuthOptions } from '../../libs/mcp/src/config/mcp-options.interface.js';
import { McpTokenError } from '../../libs/mcp/src/protocol/access-token.interface.js';
import { freePort } from '../support/redis-server.js';
import {
  BAD_TOKEN_KINDS,
  type BadTokenKind,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '../support/oidc-provider.js';

/** The MCP endpoint the tokens are for (no server needs to listen there: the verifiers only compare it). */
const RESOURCE = 'http://127.0.0.1:3001/mcp';

/** A logger that keeps what it is told, to check outages are reported once and tokens never. */
class CapturingLogger {
  readonly warnings: string[] = [];
  readonly lines: string[] = [];
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  log(message: unknown): void {
    this.lines.push(String(message));
  }
}

/** The description a verifier refused `token` with; fails the test when it was accepted or failed otherwise. */
async function refusal(verifier: { verify(token: string): Promise<unknown> }, token: string): Promise<string> {
  const outcome = await verifier.verify(token).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (outcome === undefined) throw new Error('the token was accepted');
  if (!(outcome instanceof McpTokenError)) throw new Error(`expected an McpTokenError, got ${String(outcome)}`);
  expect(outcome.description).not.toContain(token);
  return outcome.description;
}

const count = (server: TestAuthorizationServer, request: string) => server.requests.filter((r) => r === request).length;

describe('JwtTokenVerifier against a real authorization server (oidc-provider)', () => {
  let as: TestAuthorizationServer;
  const options = (): McpAuthOptions => ({ resource: RESOURCE, authorizationServers: [as.issuer] });

  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('verifies a client-credentials token: subject, scopes, client, issuer, expiry', async () => {
    const verifier = new JwtTokenVerifier(options());
    const { access_token } = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'mcp:read mcp:write' });
    const token = await verifier.verify(access_token);
    expect(token).toMatchObject({
      subject: 'mcp-service',
      scopes: ['mcp:read', 'mcp:write'],
      clientId: 'mcp-service',
      issuer: as.issuer,
    });
    expect(token.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect(token.claims).toMatchObject({ aud: RESOURCE, client_id: 'mcp-service' });
  });

  it('verifies a token from the authorization code + PKCE flow for the user who logged in', async () => {
    const verifier = new JwtTokenVerifier(options());
    const { access_token } = await as.authorizationCodeToken({
      resource: RESOURCE,
      scope: 'mcp:read',
      accountId: 'bob',
    });
    expect(await verifier.verify(access_token)).toMatchObject({
      subject: 'bob',
      scopes: ['mcp:read'],
      clientId: 'mcp-app',
    });
  });

  it('fetches the metadata and the keys once, then verifies from its cache', async () => {
    const before = { metadata: count(as, 'GET /.well-known/oauth-authorization-server'), jwks: count(as, 'GET /jwks') };
    const verifier = new JwtTokenVerifier(options());
    for (const scope of ['mcp:read', 'mcp:write', 'mcp:admin']) {
      const { access_token } = await as.clientCredentialsToken({ resource: RESOURCE, scope });
      expect((await verifier.verify(access_token)).scopes).toEqual([scope]);
    }
    expect(count(as, 'GET /.well-known/oauth-authorization-server') - before.metadata).toBe(1);
    expect(count(as, 'GET /jwks') - before.jwks).toBe(1);
  });

  it('accepts the upper-case scheme and host forms of the resource', async () => {
    const { access_token } = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'mcp:read' });
    const upperCaseResource = new JwtTokenVerifier({ ...options(), resource: 'HTTP://127.0.0.1:3001/mcp' });
    expect((await upperCaseResource.verify(access_token)).subject).toBe('mcp-service');
    const upperCaseAudience = await as.mintToken({ resource: 'HTTP://127.0.0.1:3001/mcp' });
    expect((await new JwtTokenVerifier(options()).verify(upperCaseAudience)).subject).toBe('alice');
  });

  const expected: Record<BadTokenKind, string> = {
    expired: McpTokenMessages.expired,
    'not-yet-valid': McpTokenMessages.notYetValid,
    'wrong-audience': McpTokenMessages.wrongAudience,
    'wrong-issuer': McpTokenMessages.untrustedIssuer,
    unsigned: McpTokenMessages.algorithm,
    tampered: McpTokenMessages.badSignature,
    'foreign-key': McpTokenMessages.badSignature,
    'hs256-public-key': McpTokenMessages.algorithm,
  };

  it.each(BAD_TOKEN_KINDS)('refuses a %s token with a clear description', async (kind) => {
    const verifier = new JwtTokenVerifier(options());
    const good = await as.mintToken({ resource: RESOURCE, scope: 'mcp:read' });
    expect((await verifier.verify(good)).subject).toBe('alice');
    const bad = await as.mintBadToken(kind, { resource: RESOURCE, scope: 'mcp:read' });
    expect(await refusal(verifier, bad)).toBe(expected[kind]);
  });

  it('refuses a token the authorization server issued for another resource', async () => {
    const { access_token } = await as.clientCredentialsToken({
      resource: 'http://127.0.0.1:3001/other',
      scope: 'mcp:read',
    });
    expect(await refusal(new JwtTokenVerifier(options()), access_token)).toBe(McpTokenMessages.wrongAudience);
  });

  it('refuses tokens without subject or expiry, opaque strings and oversized tokens', async () => {
    const verifier = new JwtTokenVerifier(options());
    const noSubject = await as.mintToken({ resource: RESOURCE, claims: { sub: undefined } });
    expect(await refusal(verifier, noSubject)).toBe(McpTokenMessages.noSubject);
    const noExpiry = await as.mintToken({ resource: RESOURCE, claims: { exp: undefined } });
    expect(await refusal(verifier, noExpiry)).toBe(McpTokenMessages.noExpiry);
    expect(await refusal(verifier, 'an-opaque-token')).toBe(McpTokenMessages.notJwt);
    expect(await refusal(verifier, `${'a'.repeat(20_000)}.b.c`)).toBe(McpTokenMessages.tooLong);
  });

  it('tolerates the configured clock skew, and no more', async () => {
    const now = Math.floor(Date.now() / 1000);
    const justExpired = await as.mintToken({ resource: RESOURCE, claims: { exp: now - 10 } });
    expect((await new JwtTokenVerifier(options()).verify(justExpired)).subject).toBe('alice');
    const strict = new JwtTokenVerifier({ ...options(), jwt: { clockToleranceSec: 0 } });
    expect(await refusal(strict, justExpired)).toBe(McpTokenMessages.expired);
  });

  it('never contacts anyone for a token from an issuer it does not trust', async () => {
    const verifier = new JwtTokenVerifier(options());
    const seen = as.requests.length;
    const token = await as.mintBadToken('wrong-issuer', { resource: RESOURCE });
    expect(await refusal(verifier, token)).toBe(McpTokenMessages.untrustedIssuer);
    expect(as.requests.length).toBe(seen);
  });

  it('refuses an algorithm outside the allowlist, even with a valid signature', async () => {
    const ecServer = await startAuthorizationServer({ signingAlg: 'ES256' });
    try {
      const token = await ecServer.mintToken({ resource: RESOURCE });
      const rsaOnly = new JwtTokenVerifier({
        ...options(),
        authorizationServers: [ecServer.issuer],
        jwt: { algorithms: ['RS256'] },
      });
      expect(await refusal(rsaOnly, token)).toBe(McpTokenMessages.algorithm);
      const defaults = new JwtTokenVerifier({ ...options(), authorizationServers: [ecServer.issuer] });
      expect((await defaults.verify(token)).subject).toBe('alice');
    } finally {
      await ecServer.close();
    }
  });
});

describe('JwtTokenVerifier: keys, discovery and rotation', () => {
  it('picks up a rotated signing key and keeps accepting tokens signed by the old one', async () => {
    const as = await startAuthorizationServer();
    try {
      const verifier = new JwtTokenVerifier(
        { resource: RESOURCE, authorizationServers: [as.issuer] },
        { keysCooldownMs: 0 },
      );
      const before = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'mcp:read' });
      expect((await verifier.verify(before.access_token)).subject).toBe('mcp-service');
      const oldKid = as.signingKid;
      const newKid = await as.rotateSigningKey();
      expect(newKid).not.toBe(oldKid);
      expect(as.publishedKids).toEqual([newKid, oldKid]);

      const after = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'mcp:write' });
      expect(JSON.parse(Buffer.from(after.access_token.split('.')[0], 'base64url').toString()).kid).toBe(newKid);
      expect((await verifier.verify(after.access_token)).scopes).toEqual(['mcp:write']);
      expect((await verifier.verify(before.access_token)).scopes).toEqual(['mcp:read']);
      // An unknown kid made the key set be fetched again, exactly once.
      expect(count(as, 'GET /jwks')).toBe(2);
    } finally {
      await as.close();
    }
  });

  it('does not fetch the keys again for an unknown key id within the cooldown', async () => {
    const as = await startAuthorizationServer();
    try {
      const verifier = new JwtTokenVerifier({ resource: RESOURCE, authorizationServers: [as.issuer] });
      expect((await verifier.verify(await as.mintToken({ resource: RESOURCE }))).subject).toBe('alice');
      await as.rotateSigningKey();
      const rotated = await as.mintToken({ resource: RESOURCE });
      expect(await refusal(verifier, rotated)).toBe(McpTokenMessages.unknownKey);
      expect(await refusal(verifier, rotated)).toBe(McpTokenMessages.unknownKey);
      expect(count(as, 'GET /jwks')).toBe(1);
    } finally {
      await as.close();
    }
  });

  it('discovers the keys at the RFC 8414 location first, and at the OpenID one for an issuer with a path', async () => {
    const rfc8414 = await startAuthorizationServer();
    const openIdOnly = await startAuthorizationServer({ issuerPath: '/realms/mcp', rfc8414Metadata: false });
    try {
      const metadata = await fetchAuthorizationServerMetadata(rfc8414.issuer, { timeoutMs: 5_000 });
      expect(metadata).toMatchObject({ issuer: rfc8414.issuer, jwks_uri: rfc8414.endpoints.jwks });
      expect(rfc8414.requests).toEqual(['GET /.well-known/oauth-authorization-server']);

      expect(openIdOnly.issuer).toMatch(/\/realms\/mcp$/);
      const verifier = new JwtTokenVerifier({
        resource: RESOURCE,
        authorizationServers: [rfc8414.issuer, openIdOnly.issuer],
      });
      const { access_token } = await openIdOnly.clientCredentialsToken({ resource: RESOURCE, scope: 'mcp:read' });
      expect(await verifier.verify(access_token)).toMatchObject({ subject: 'mcp-service', issuer: openIdOnly.issuer });
      expect(openIdOnly.requests.filter((request) => request.startsWith('GET'))).toEqual([
        'GET /.well-known/oauth-authorization-server/realms/mcp',
        'GET /.well-known/openid-configuration/realms/mcp',
        'GET /realms/mcp/.well-known/openid-configuration',
        'GET /realms/mcp/jwks',
      ]);
    } finally {
      await Promise.all([rfc8414.close(), openIdOnly.close()]);
    }
  });

  it('refuses metadata whose issuer is not the configured one', async () => {
    const as = await startAuthorizationServer();
    try {
      // The same server under another spelling of its issuer: the document says the real one (RFC 8414 §3.3).
      const alias = as.issuer.replace('127.0.0.1', 'localhost');
      await expect(fetchAuthorizationServerMetadata(alias, { timeoutMs: 5_000 })).rejects.toThrow(
        /its "issuer" is not/,
      );
    } finally {
      await as.close();
    }
  });

  it('uses jwt.jwksUri when given, without discovery', async () => {
    const as = await startAuthorizationServer();
    try {
      const verifier = new JwtTokenVerifier({
        resource: RESOURCE,
        authorizationServers: [as.issuer],
        jwt: { jwksUri: as.endpoints.jwks },
      });
      expect((await verifier.verify(await as.mintToken({ resource: RESOURCE }))).subject).toBe('alice');
      expect(as.requests).toEqual(['GET /jwks']);
    } finally {
      await as.close();
    }
  });

  describe('when the keys cannot be fetched', () => {
    let as: TestAuthorizationServer;
    let keyServer: Server;
    let keysUp = false;
    let keyRequests = 0;
    let jwksUri: string;

    beforeAll(async () => {
      as = await startAuthorizationServer();
      // Serves the authorization server's JWKS when "up", and fails with 503 otherwise.
      keyServer = createServer((_request, response) => {
        keyRequests++;
        if (!keysUp) {
          response.writeHead(503).end();
          return;
        }
        void fetch(as.endpoints.jwks)
          .then((answer) => answer.text())
          .then((body) => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
      });
      await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
      jwksUri = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/jwks`;
    });
    afterAll(async () => {
      keyServer?.closeAllConnections();
      await new Promise((resolve) => keyServer?.close(resolve));
      await as?.close();
    });

    it('fails closed, logs one line per outage and one when the keys are back', async () => {
      keysUp = false;
      const logger = new CapturingLogger();
      const verifier = new JwtTokenVerifier(
        { resource: RESOURCE, authorizationServers: [as.issuer], jwt: { jwksUri } },
        { logger, retryAfterFailureMs: 0 },
      );
      const token = await as.mintToken({ resource: RESOURCE });
      expect(await refusal(verifier, token)).toBe(McpTokenMessages.keysUnavailable);
      expect(await refusal(verifier, token)).toBe(McpTokenMessages.keysUnavailable);
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toContain(jwksUri);
      expect(logger.warnings[0]).not.toContain(token);

      keysUp = true;
      expect((await verifier.verify(token)).subject).toBe('alice');
      expect(logger.lines).toEqual([`The signing keys of ${jwksUri} are available again`]);

      keysUp = false;
      // Cached keys keep working while the key server is down again.
      expect((await verifier.verify(await as.mintToken({ resource: RESOURCE }))).subject).toBe('alice');
      expect(logger.warnings).toHaveLength(1);
    });

    it('does not retry during retryAfterFailureMs: an outage is not a request per token', async () => {
      keysUp = false;
      const logger = new CapturingLogger();
      const verifier = new JwtTokenVerifier(
        { resource: RESOURCE, authorizationServers: [as.issuer], jwt: { jwksUri } },
        { logger, retryAfterFailureMs: 60_000 },
      );
      const before = keyRequests;
      const token = await as.mintToken({ resource: RESOURCE });
      expect(await refusal(verifier, token)).toBe(McpTokenMessages.keysUnavailable);
      keysUp = true;
      expect(await refusal(verifier, token)).toBe(McpTokenMessages.keysUnavailable);
      expect(keyRequests - before).toBe(1);
    });

    it('keeps verifying with the keys it has during an outage, and refuses what would need a fetch', async () => {
      keysUp = true;
      const logger = new CapturingLogger();
      const verifier = new JwtTokenVerifier(
        { resource: RESOURCE, authorizationServers: [as.issuer], jwt: { jwksUri } },
        { logger, keysCooldownMs: 0, retryAfterFailureMs: 60_000 },
      );
      const known = await as.mintToken({ resource: RESOURCE });
      expect((await verifier.verify(known)).subject).toBe('alice');

      keysUp = false;
      await as.rotateSigningKey();
      const rotated = await as.mintToken({ resource: RESOURCE });
      const before = keyRequests;
      expect(await refusal(verifier, rotated)).toBe(McpTokenMessages.keysUnavailable);
      expect(keyRequests - before).toBe(1);
      expect(logger.warnings).toHaveLength(1);

      expect((await verifier.verify(known)).subject).toBe('alice');
      expect(await refusal(verifier, rotated)).toBe(McpTokenMessages.keysUnavailable);
      expect(keyRequests - before).toBe(1);
    });

    it('fails closed when the issuer cannot be reached for its metadata', async () => {
      const logger = new CapturingLogger();
      const port = await freePort();
      const issuer = `http://127.0.0.1:${port}`;
      const verifier = new JwtTokenVerifier(
        { resource: RESOURCE, authorizationServers: [issuer] },
        { logger, fetchTimeoutMs: 2_000 },
      );
      const token = await as.mintToken({ resource: RESOURCE, claims: { iss: issuer } });
      expect(await refusal(verifier, token)).toBe(McpTokenMessages.keysUnavailable);
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toContain(`The signing keys of ${issuer} could not be fetched`);
    });
  });
});

describe('IntrospectionTokenVerifier against a real authorization server (opaque tokens)', () => {
  let as: TestAuthorizationServer;
  const options = (cacheTtlMs?: number): McpAuthOptions => ({
    resource: RESOURCE,
    authorizationServers: [as.issuer],
    introspection: { endpoint: as.endpoints.introspection, ...as.introspectionClient, cacheTtlMs },
  });
  const introspections = () => count(as, 'POST /token/introspection');

  beforeAll(async () => {
    as = await startAuthorizationServer({ tokenFormat: 'opaque' });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('verifies an active client-credentials token: the client is its subject', async () => {
    const { access_token } = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'mcp:read mcp:admin' });
    expect(access_token.split('.')).toHaveLength(1);
    expect(await new IntrospectionTokenVerifier(options()).verify(access_token)).toMatchObject({
      subject: 'mcp-service',
      scopes: ['mcp:read', 'mcp:admin'],
      clientId: 'mcp-service',
      issuer: as.issuer,
    });
  });

  it('verifies a user token from the authorization code + PKCE flow', async () => {
    const { access_token } = await as.authorizationCodeToken({
      resource: RESOURCE,
      scope: 'mcp:write',
      accountId: 'carol',
    });
    expect(await new IntrospectionTokenVerifier(options()).verify(access_token)).toMatchObject({
      subject: 'carol',
      scopes: ['mcp:write'],
      clientId: 'mcp-app',
    });
  });

  it('refuses a revoked token once its cached answer is older than cacheTtlMs, not before', async () => {
    const longCache = new IntrospectionTokenVerifier(options(60_000));
    const shortCache = new IntrospectionTokenVerifier(options(200));
    const { access_token } = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'mcp:read' });
    expect((await longCache.verify(access_token)).subject).toBe('mcp-service');
    expect((await shortCache.verify(access_token)).subject).toBe('mcp-service');
    const cachedAt = Date.now();

    await as.revoke(access_token);
    expect(await as.introspect(access_token)).toEqual({ active: false });
    const asked = introspections();
    expect((await longCache.verify(access_token)).subject).toBe('mcp-service');
    expect(introspections()).toBe(asked);

    await sleep(Math.max(0, cachedAt + 250 - Date.now()));
    expect(await refusal(shortCache, access_token)).toBe(McpTokenMessages.inactive);
    expect(introspections()).toBe(asked + 1);
  });

  it('never keeps an answer beyond the token expiry', async () => {
    // Two seconds: `exp` is whole seconds from the issue time, so the token lives between one and two seconds.
    const shortLived = await startAuthorizationServer({ tokenFormat: 'opaque', accessTokenTtlSec: 2 });
    try {
      const verifier = new IntrospectionTokenVerifier(
        {
          resource: RESOURCE,
          authorizationServers: [shortLived.issuer],
          introspection: {
            endpoint: shortLived.endpoints.introspection,
            ...shortLived.introspectionClient,
            cacheTtlMs: 60_000,
          },
        },
        { clockToleranceSec: 0 },
      );
      const { access_token } = await shortLived.clientCredentialsToken({ resource: RESOURCE });
      const token = await verifier.verify(access_token);
      await sleep(Math.max(0, (token.expiresAt as number) * 1000 + 50 - Date.now()));
      expect(await refusal(verifier, access_token)).toMatch(/^The token (is not active|expired)/);
      expect(count(shortLived, 'POST /token/introspection')).toBe(2);
    } finally {
      await shortLived.close();
    }
  });

  it('asks once for concurrent requests with the same token, and keys its cache by hash', async () => {
    const verifier = new IntrospectionTokenVerifier(options());
    const { access_token } = await as.clientCredentialsToken({ resource: RESOURCE });
    const asked = introspections();
    const results = await Promise.all(Array.from({ length: 5 }, () => verifier.verify(access_token)));
    expect(results.map((result) => result.subject)).toEqual(Array(5).fill('mcp-service'));
    expect(introspections()).toBe(asked + 1);
    const cacheKeys = [...(verifier as unknown as { cache: { entries: Map<string, unknown> } }).cache.entries.keys()];
    expect(cacheKeys).toHaveLength(1);
    expect(cacheKeys[0]).not.toContain(access_token);
  });

  it('refuses unknown tokens, tokens for another resource and JWTs it cannot introspect', async () => {
    const verifier = new IntrospectionTokenVerifier(options());
    expect(await refusal(verifier, 'no-such-token')).toBe(McpTokenMessages.inactive);
    const other = await as.clientCredentialsToken({ resource: 'http://127.0.0.1:3001/other', scope: 'mcp:read' });
    expect(await refusal(verifier, other.access_token)).toBe(McpTokenMessages.wrongAudience);
    expect(await refusal(verifier, await as.mintToken({ resource: RESOURCE }))).toBe(McpTokenMessages.inactive);
  });

  it('fails closed when the endpoint refuses its credentials, logging one line, without the secret or the token', async () => {
    const logger = new CapturingLogger();
    const verifier = new IntrospectionTokenVerifier(
      {
        ...options(),
        introspection: {
          endpoint: as.endpoints.introspection,
          clientId: as.introspectionClient.clientId,
          clientSecret: 'wrong-secret',
        },
      },
      { logger, retryAfterFailureMs: 0 },
    );
    const { access_token } = await as.clientCredentialsToken({ resource: RESOURCE });
    expect(await refusal(verifier, access_token)).toBe(McpTokenMessages.introspectionUnavailable);
    expect(await refusal(verifier, access_token)).toBe(McpTokenMessages.introspectionUnavailable);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain("refused this resource server's credentials (status 401)");
    expect(logger.warnings[0]).not.toContain('wrong-secret');
    expect(logger.warnings[0]).not.toContain(access_token);
  });

  it('fails closed when the endpoint cannot be reached', async () => {
    const logger = new CapturingLogger();
    const endpoint = `http://127.0.0.1:${await freePort()}/token/introspection`;
    const verifier = new IntrospectionTokenVerifier(
      { ...options(), introspection: { endpoint, ...as.introspectionClient } },
      { logger, fetchTimeoutMs: 2_000 },
    );
    expect(await refusal(verifier, 'some-token')).toBe(McpTokenMessages.introspectionUnavailable);
    expect(logger.warnings).toEqual([expect.stringContaining(`The introspection endpoint ${endpoint} gave no answer`)]);
  });
});

describe('the official MCP client obtains tokens from the test authorization server', () => {
  let as: TestAuthorizationServer;
  let resourceServer: Server;
  let resource: string;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    // Only Protected Resource Metadata: enough for the client's discovery; the MCP endpoint itself is not needed here.
    resourceServer = createServer((request, response) => {
      const location = protectedResourceMetadataLocation(resource);
      if (request.url === location.path || request.url === location.rootPath) {
        const document = buildProtectedResourceMetadata({
          resource,
          authorizationServers: [as.issuer],
          scopesSupported: ['mcp:read'],
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
      } else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => resourceServer.listen(0, '127.0.0.1', resolve));
    resource = `http://127.0.0.1:${(resourceServer.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    resourceServer?.closeAllConnections();
    await new Promise((resolve) => resourceServer?.close(resolve));
    await as?.close();
  });

  it('client credentials (ClientCredentialsProvider)', async () => {
    const [client] = as.confidentialClients;
    const provider = new ClientCredentialsProvider({ ...client, expectedIssuer: as.issuer });
    expect(await auth(provider, { serverUrl: resource, scope: 'mcp:read mcp:write' })).toBe('AUTHORIZED');
    const token = await new JwtTokenVerifier({ resource, authorizationServers: [as.issuer] }).verify(
      provider.tokens()!.access_token,
    );
    expect(token).toMatchObject({ subject: client.clientId, scopes: ['mcp:read', 'mcp:write'] });
  });

  it('authorization code + PKCE, driven through the interaction pages', async () => {
    let authorizationUrl: URL | undefined;
    let verifier = '';
    let tokens: OAuthTokens | undefined;
    const provider: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1/callback',
      clientMetadata: {
        client_name: 'test',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      },
      clientInformation: () => ({ client_id: as.publicClients[0].clientId }),
      tokens: () => tokens,
      saveTokens: (saved) => void (tokens = saved),
      redirectToAuthorization: (url) => void (authorizationUrl = url),
      saveCodeVerifier: (saved) => void (verifier = saved),
      codeVerifier: () => verifier,
    };
    expect(await auth(provider, { serverUrl: resource, scope: 'mcp:read' })).toBe('REDIRECT');
    const callback = await as.authorize(authorizationUrl!, { accountId: 'dana' });
    const code = callback.searchParams.get('code');
    expect(code, callback.search).toBeTruthy();
    expect(
      await auth(provider, {
        serverUrl: resource,
        authorizationCode: code!,
        iss: callback.searchParams.get('iss') ?? undefined,
      }),
    ).toBe('AUTHORIZED');
    const token = await new JwtTokenVerifier({ resource, authorizationServers: [as.issuer] }).verify(
      tokens!.access_token,
    );
    expect(token).toMatchObject({ subject: 'dana', scopes: ['mcp:read'], clientId: as.publicClients[0].clientId });
  });
});
