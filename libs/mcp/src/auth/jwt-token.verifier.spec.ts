import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JwtTokenVerifier } from './jwt-token.verifier.js';

const ISSUER = 'https://id.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';

let server: Server;
let jwksUri: string;
let privateKey: CryptoKey;
let jwksFetches = 0;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server = createServer((_request, response) => {
    jwksFetches++;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUri = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function sign(expiresInSec: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'ops:read' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(RESOURCE)
    .setSubject('alice')
    .setIssuedAt(now)
    .setExpirationTime(now + expiresInSec)
    .sign(privateKey);
}

function verifier(verifiedCacheTtlMs?: number): JwtTokenVerifier {
  return new JwtTokenVerifier(
    { resource: RESOURCE, authorizationServers: [ISSUER], jwt: { jwksUri, clockToleranceSec: 0 } },
    { verifiedCacheTtlMs, logger: { warn: () => undefined, log: () => undefined } },
  );
}

describe('JwtTokenVerifier: verified tokens are remembered by their hash', () => {
  it('answers the same token again from the cache (the same frozen result), without fetching keys again', async () => {
    const jwt = verifier();
    const token = await sign(300);
    const first = await jwt.verify(token);
    const fetched = jwksFetches;
    const second = await jwt.verify(token);
    expect(second).toBe(first);
    expect(Object.isFrozen(second)).toBe(true);
    expect(second).toMatchObject({ subject: 'alice', scopes: ['ops:read'], issuer: ISSUER });
    expect(jwksFetches).toBe(fetched);
  });

  it('checks every call when the cache is off (verifiedCacheTtlMs: 0)', async () => {
    const jwt = verifier(0);
    const token = await sign(300);
    expect(await jwt.verify(token)).not.toBe(await jwt.verify(token));
  });

  it('never serves a token past its exp from the cache', async () => {
    const jwt = verifier(600_000);
    const token = await sign(60);
    await jwt.verify(token);
    // The clock moves past `exp` (only Date is faked: the key fetch and jose's crypto keep real timers).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    try {
      await expect(jwt.verify(token)).rejects.toMatchObject({ name: 'McpTokenError' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not remember refused tokens: a tampered copy of a cached token is refused', async () => {
    const jwt = verifier();
    const token = await sign(300);
    await jwt.verify(token);
    const [header, payload, signature] = token.split('.');
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'mallory' })).toString('base64url')}.${signature}`;
    await expect(jwt.verify(tampered)).rejects.toMatchObject({ name: 'McpTokenError' });
  });
});
