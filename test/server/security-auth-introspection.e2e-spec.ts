import { IntrospectionTokenVerifier, McpTokenMessages } from '../../libs/mcp/src/auth/index.js';
import { McpTokenError } from '../../libs/mcp/src/protocol/access-token.interface.js';
import type { McpIntrospectionOptions } from 'nest-mcp/backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../support/app.factory.js';
import { type AuthApp, bearer, callTool, expectRefusal, startAuthApp } from '../support/auth-app.js';
import { type IntrospectionProxy, startIntrospectionProxy } from '../support/introspection-proxy.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { expectError, expectResult, textOf } from '../support/wire-response.util.js';
import { until } from '../support/wait.util.js';

/**
 * Security round 3 (issue #24), findings 3 and 4: RFC 7662 introspection against a real authorization server
 * (oidc-provider, opaque tokens) behind an endpoint the test controls (`startIntrospectionProxy`: it forwards, or
 * answers a token itself, or holds its answers).
 *
 * - Finding 3: an active answer must name this resource in `aud`; a token issued for no resource is refused (401),
 *   unless `introspection.requireAudience: false`. An answer without `iss` is the one trusted server's, and names
 *   nobody when several are trusted.
 * - Finding 4: a 429 for one bogus token refuses that token only, the next valid token is served; refused answers are
 *   cached (one introspection per junk token); at most `maxInFlight` introspections run, the next is 503 with
 *   `Retry-After`; only failures across several tokens (or the endpoint unreachable) open the outage window.
 *
 * HTTP cases run on both adapters and check the status, the JSON-RPC code and that the next request is served.
 */

const CLIENT = { clientId: 'svc-opaque', clientSecret: 'opaque-secret-0123456789' };

let as: TestAuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer({ tokenFormat: 'opaque', confidentialClients: [CLIENT] });
});
afterAll(async () => {
  await as?.close();
});

/** A fresh opaque token of `CLIENT` for `resource` (undefined: for no resource, so without `aud`). */
async function opaqueToken(resource: string | undefined): Promise<string> {
  const scope = resource === undefined ? undefined : 'mcp:read';
  return (await as.clientCredentialsToken({ resource, scope, ...CLIENT })).access_token;
}

/** An app whose tokens are introspected at `proxy`, with more introspection options. */
function startIntrospectedApp(
  adapter: (typeof ADAPTERS)[number],
  proxy: IntrospectionProxy,
  options: Partial<McpIntrospectionOptions> = {},
) {
  return startAuthApp(adapter, (resource) => ({
    resource,
    authorizationServers: [as.issuer],
    introspection: { endpoint: proxy.endpoint, ...as.introspectionClient, ...options },
  }));
}

async function expectServed(app: AuthApp): Promise<void> {
  const token = await opaqueToken(app.resource);
  expect(textOf(expectResult(await callTool(app, 'whoami', bearer(token)), 'tools/call'))).toBe(
    `principal=${CLIENT.clientId}`,
  );
}

describe.each(ADAPTERS)('introspection at the HTTP edge (%s)', (adapter) => {
  let proxy: IntrospectionProxy;
  let app: AuthApp;

  beforeAll(async () => {
    proxy = await startIntrospectionProxy(as.endpoints.introspection);
    app = await startIntrospectedApp(adapter, proxy);
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
  });

  it('a token the authorization server issued for no resource (active, no `aud`) → 401 invalid_token; a token for this resource is served', async () => {
    const unbound = await opaqueToken(undefined);
    expect(await as.introspect(unbound)).toMatchObject({ active: true, iss: as.issuer });
    expect(await as.introspect(unbound)).not.toHaveProperty('aud');
    const params = expectRefusal(await callTool(app, 'whoami', bearer(unbound)), 401, 'invalid_token');
    expect(params.error_description).toBe(McpTokenMessages.noAudience);
    expect(app.probe.principals).not.toContain(CLIENT.clientId);
    await expectServed(app);
  });

  it('`requireAudience: false` accepts an answer without `aud`, and still refuses one naming another resource', async () => {
    const lenient = await startIntrospectedApp(adapter, proxy, { requireAudience: false });
    try {
      const unbound = await opaqueToken(undefined);
      expect(textOf(expectResult(await callTool(lenient, 'whoami', bearer(unbound)), 'tools/call'))).toBe(
        `principal=${CLIENT.clientId}`,
      );
      const other = await opaqueToken(`${lenient.origin}/other`);
      expect(
        expectRefusal(await callTool(lenient, 'whoami', bearer(other)), 401, 'invalid_token').error_description,
      ).toBe(McpTokenMessages.wrongAudience);
      await expectServed(lenient);
    } finally {
      await lenient.close();
    }
  });

  it('a 429 for one bogus token refuses that token only: the next valid token is served, and the bogus one is not asked again at once', async () => {
    const bogus = `bogus-${adapter}-429`;
    proxy.statusFor.set(bogus, 429);
    const params = expectRefusal(await callTool(app, 'whoami', bearer(bogus)), 401, 'invalid_token');
    expect(params.error_description).toBe(McpTokenMessages.introspectionUnavailable);
    // A token the verifier never saw: the endpoint is asked, and answers.
    await expectServed(app);
    expectRefusal(await callTool(app, 'whoami', bearer(bogus)), 401, 'invalid_token');
    expect(proxy.asked(bogus)).toBe(1);
    await expectServed(app);
  });

  it('a junk token is introspected once, however often it is sent (inactive answers are cached)', async () => {
    const junk = `junk-${adapter}-never-issued`;
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(expectRefusal(await callTool(app, 'whoami', bearer(junk)), 401, 'invalid_token').error_description).toBe(
        McpTokenMessages.inactive,
      );
    }
    expect(proxy.asked(junk)).toBe(1);
    await expectServed(app);
  });

  it('more introspections than `maxInFlight` at once → 503 with Retry-After and -32603; the ones in flight then complete', async () => {
    const narrow = await startIntrospectedApp(adapter, proxy, { maxInFlight: 2 });
    try {
      const [first, second, third] = await Promise.all([
        opaqueToken(narrow.resource),
        opaqueToken(narrow.resource),
        opaqueToken(narrow.resource),
      ]);
      proxy.hold = true;
      const running = [callTool(narrow, 'whoami', bearer(first)), callTool(narrow, 'whoami', bearer(second))];
      await until(() => proxy.held === 2, 10_000, 'two introspections held at the endpoint');
      const refused = await callTool(narrow, 'whoami', bearer(third));
      expectError(refused, 503, -32603, 'absent');
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('www-authenticate')).toBeNull();
      expect(proxy.asked(third)).toBe(0);
      proxy.hold = false;
      proxy.release();
      for (const response of await Promise.all(running)) {
        expect(textOf(expectResult(response, 'tools/call'))).toBe(`principal=${CLIENT.clientId}`);
      }
      // The refused one was never judged: it is served once there is room.
      expect(textOf(expectResult(await callTool(narrow, 'whoami', bearer(third)), 'tools/call'))).toBe(
        `principal=${CLIENT.clientId}`,
      );
    } finally {
      proxy.hold = false;
      proxy.release();
      await narrow.close();
    }
  });
});

/** A logger that keeps its warnings, to see when an outage is declared. */
class OutageLog {
  readonly warnings: string[] = [];
  readonly lines: string[] = [];
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  log(message: unknown): void {
    this.lines.push(String(message));
  }
}

async function refusal(verifier: IntrospectionTokenVerifier, token: string): Promise<string> {
  const error = await verifier.verify(token).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpTokenError);
  return (error as McpTokenError).description;
}

describe('IntrospectionTokenVerifier: what a failure is charged to', () => {
  const RESOURCE = 'http://127.0.0.1:3001/mcp';
  let proxy: IntrospectionProxy;
  const verifierOf = (
    logger: OutageLog,
    introspection: Partial<McpIntrospectionOptions> = {},
    authorizationServers = [as.issuer],
  ) =>
    new IntrospectionTokenVerifier(
      {
        resource: RESOURCE,
        authorizationServers,
        introspection: { endpoint: proxy.endpoint, ...as.introspectionClient, ...introspection },
      },
      { logger, retryAfterFailureMs: 60_000 },
    );

  beforeAll(async () => {
    proxy = await startIntrospectionProxy(as.endpoints.introspection);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('failures of several distinct tokens in a row open the outage window: no more asking, one warning', async () => {
    const logger = new OutageLog();
    const verifier = verifierOf(logger);
    const failing = Array.from({ length: 5 }, (_, index) => `failing-${index}`);
    for (const token of failing) proxy.statusFor.set(token, 500);
    for (const token of failing.slice(0, 4))
      expect(await refusal(verifier, token)).toBe(McpTokenMessages.introspectionUnavailable);
    expect(logger.warnings).toEqual([]);
    expect(await refusal(verifier, failing[4])).toBe(McpTokenMessages.introspectionUnavailable);
    expect(logger.warnings).toEqual([
      expect.stringContaining('5 tokens in a row could not be checked (last: status 500)'),
    ]);
    const asked = proxy.total;
    expect(await refusal(verifier, await opaqueToken(RESOURCE))).toBe(McpTokenMessages.introspectionUnavailable);
    expect(proxy.total).toBe(asked);
  });

  it("a good answer between failures means they were the tokens' own: no outage", async () => {
    const logger = new OutageLog();
    const verifier = verifierOf(logger);
    for (let round = 0; round < 3; round++) {
      for (let index = 0; index < 4; index++) {
        const token = `flaky-${round}-${index}`;
        proxy.statusFor.set(token, 503);
        expect(await refusal(verifier, token)).toBe(McpTokenMessages.introspectionUnavailable);
      }
      expect((await verifier.verify(await opaqueToken(RESOURCE))).subject).toBe(CLIENT.clientId);
    }
    expect(logger.warnings).toEqual([]);
  });

  it("an answer without `iss` is the one trusted server's; with several trusted, it names nobody", async () => {
    proxy.stripIssuer = true;
    try {
      const token = await opaqueToken(RESOURCE);
      expect(await verifierOf(new OutageLog()).verify(token)).toMatchObject({
        subject: CLIENT.clientId,
        issuer: as.issuer,
      });
      const several = await verifierOf(new OutageLog(), {}, [as.issuer, 'https://other.example.com']).verify(token);
      expect(several.issuer).toBeUndefined();
    } finally {
      proxy.stripIssuer = false;
    }
  });

  it('the options are checked at startup', async () => {
    const { validateAuthOptions } = await import('../../libs/mcp/src/auth/auth-options.validator.js');
    const base = { resource: RESOURCE, authorizationServers: [as.issuer] };
    for (const [introspection, message] of [
      [{ maxInFlight: 0 }, /maxInFlight/],
      [{ inactiveCacheTtlMs: -1 }, /inactiveCacheTtlMs/],
      [{ requireAudience: 'no' }, /requireAudience/],
    ] as const) {
      expect(() =>
        validateAuthOptions({
          ...base,
          introspection: { endpoint: proxy.endpoint, ...as.introspectionClient, ...introspection },
        }),
      ).toThrow(message);
    }
  });
});

describe.each(ADAPTERS)('an introspected token without `iss` when several issuers are trusted (%s)', (adapter) => {
  it('→ 401 invalid_token "does not name its issuer"; with auth.principal mapping it, it is served', async () => {
    const proxy = await startIntrospectionProxy(as.endpoints.introspection);
    proxy.stripIssuer = true;
    const introspection = { endpoint: proxy.endpoint, ...as.introspectionClient };
    const strict = await startAuthApp(adapter, (resource) => ({
      resource,
      authorizationServers: [as.issuer, 'https://other.example.com'],
      introspection,
    }));
    const mapped = await startAuthApp(adapter, (resource) => ({
      resource,
      authorizationServers: [as.issuer, 'https://other.example.com'],
      introspection,
      principal: (token) => `opaque:${token.subject}`,
    }));
    try {
      const params = expectRefusal(
        await callTool(strict, 'whoami', bearer(await opaqueToken(strict.resource))),
        401,
        'invalid_token',
      );
      expect(params.error_description).toBe(McpTokenMessages.noIssuer);
      expect(
        textOf(
          expectResult(await callTool(mapped, 'whoami', bearer(await opaqueToken(mapped.resource))), 'tools/call'),
        ),
      ).toBe(`principal=opaque:${CLIENT.clientId}`);
    } finally {
      await Promise.all([strict.close(), mapped.close()]);
      await proxy.close();
    }
  });
});
