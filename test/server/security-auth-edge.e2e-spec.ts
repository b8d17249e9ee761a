import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../support/app.factory.js';
import { type AuthApp, bearer, callTool, expectRefusal, startAuthApp } from '../support/auth-app.js';
import { forkFixtureServer, type ForkedServer } from '../support/forked-server.js';
import { freePort } from '../support/free-port.js';
import { type HeldAnswer, holdUpload, within } from '../support/held-upload.util.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { mcpHeaders, mcpPost, requestMeta } from '../support/raw-request.util.js';
import { expectResult, textOf } from '../support/wire-response.util.js';

/**
 * Security round 3 (issue #24), the HTTP edge of the resource server, against a real authorization server
 * (oidc-provider) on both adapters:
 *
 * - finding 1: the bearer token is checked before a byte of the body is read. A POST without a valid token that
 *   declares a body near `maxBodyBytes` is answered 401 at once (drain-then-close), and 32 of them cost a real server
 *   process no memory;
 * - finding 9: two `Authorization` headers are 400 `invalid_request` (Node keeps the first and drops the second);
 * - finding 10: a token in the query string is refused however it is spelled (`access%5Ftoken`, any case, qs brackets).
 *
 * Every refusal is checked for its status, its JSON-RPC code and challenge, and the server serves the next request.
 */

const CLIENT = { clientId: 'svc-edge', clientSecret: 'edge-secret-0123456789' };
/** Near the default `maxBodyBytes` (4 MiB), under it: a body the endpoint would read whole. */
const DECLARED = 4 * 1024 * 1024 - 64 * 1024;
const ANSWER_WITHIN_MS = 10_000;

let as: TestAuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer({ confidentialClients: [CLIENT] });
});
afterAll(async () => {
  await as?.close();
});

async function tokenFor(resource: string): Promise<string> {
  return (await as.clientCredentialsToken({ resource, scope: 'mcp:read', ...CLIENT })).access_token;
}

/** The body and headers of a `tools/call` of `whoami`, with an `Authorization` of one value or several. */
function whoamiRequest(authorization?: string | string[]): {
  body: string;
  headers: Record<string, string | string[]>;
} {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'whoami', arguments: {}, _meta: requestMeta() },
  });
  return {
    body,
    headers: {
      ...mcpHeaders('tools/call', { name: 'whoami' }),
      ...(authorization === undefined ? {} : { authorization }),
    },
  };
}

/** A pre-body refusal of a held upload: its status, JSON-RPC error and challenge, and `Connection: close`. */
function expectHeldRefusal(
  answer: HeldAnswer,
  status: 400 | 401,
  error?: 'invalid_request' | 'invalid_token',
): Record<string, string> {
  const params = expectRefusal(answer, status, error);
  expect(answer.headers.get('connection')).toBe('close');
  return params;
}

/** A valid call goes through: the server still serves. */
async function expectServes(url: URL, token: string, principal = CLIENT.clientId): Promise<void> {
  const response = await mcpPost(url, {
    method: 'tools/call',
    params: { name: 'whoami', arguments: {} },
    headers: bearer(token),
  });
  expect(textOf(expectResult(response, 'tools/call'))).toBe(`principal=${principal}`);
}

describe.each(ADAPTERS)('the bearer check before the body (%s)', (adapter) => {
  let app: AuthApp;
  let token: string;

  beforeAll(async () => {
    app = await startAuthApp(adapter, (resource) => ({
      resource,
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp:read'],
    }));
    token = await tokenFor(app.resource);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a POST without a valid token that declares ~4 MiB and sends none of it is answered 401 at once; nothing runs', async () => {
    const forged = await as.mintBadToken('tampered', { resource: app.resource, scope: 'mcp:read' });
    const runs = app.probe.principals.length;
    const cases: Array<[string | undefined, 'invalid_token' | undefined]> = [
      [undefined, undefined],
      [`Bearer ${forged}`, 'invalid_token'],
      ['Bearer not-a-jwt', 'invalid_token'],
    ];
    for (const [authorization, error] of cases) {
      const upload = holdUpload(app.mcpUrl, whoamiRequest(authorization).headers, DECLARED);
      try {
        const answer = await within(
          upload.answer,
          ANSWER_WITHIN_MS,
          `a POST (${authorization ?? 'no token'}) whose body was withheld`,
        );
        const params = expectHeldRefusal(answer, 401, error);
        expect(params.resource_metadata).toMatch(/\/\.well-known\/oauth-protected-resource\/mcp$/);
      } finally {
        upload.destroy();
      }
    }
    expect(app.probe.principals.length).toBe(runs);
    await expectServes(app.mcpUrl, token);
  });

  it('a malformed Authorization header or a query token → 400 invalid_request before the body is read', async () => {
    for (const [path, authorization] of [
      ['', 'Bearer'],
      ['', `Bearer ${token} extra`],
      ['?access_token=x', `Bearer ${token}`],
    ]) {
      const upload = holdUpload(new URL(`${app.mcpUrl}${path}`), whoamiRequest(authorization).headers, DECLARED);
      try {
        expectHeldRefusal(
          await within(
            upload.answer,
            ANSWER_WITHIN_MS,
            `a POST to ${path || '/mcp'} with "${authorization.slice(0, 12)}…"`,
          ),
          400,
          'invalid_request',
        );
      } finally {
        upload.destroy();
      }
    }
    await expectServes(app.mcpUrl, token);
  });

  it('an upload that goes on after its 401 is read to its end and thrown away; the client reads the answer, not a reset', async () => {
    const { body, headers } = whoamiRequest();
    const padded = body.padEnd(256 * 1024, ' ');
    const upload = holdUpload(app.mcpUrl, headers, Buffer.byteLength(padded));
    try {
      await upload.send(padded);
      expectHeldRefusal(
        await within(upload.answer, ANSWER_WITHIN_MS, 'a POST without a token and a 256 KiB body'),
        401,
      );
    } finally {
      upload.destroy();
    }
    await expectServes(app.mcpUrl, token);
  });

  it('two Authorization headers → 400 invalid_request, whichever comes first; nothing runs', async () => {
    const forged = await as.mintBadToken('tampered', { resource: app.resource, scope: 'mcp:read' });
    const runs = app.probe.principals.length;
    for (const pair of [
      [`Bearer ${token}`, `Bearer ${forged}`],
      [`Bearer ${forged}`, `Bearer ${token}`],
      [`Bearer ${token}`, `Bearer ${token}`],
      [`Bearer ${token}`, 'Basic dXNlcjpwYXNz'],
    ]) {
      const { body, headers } = whoamiRequest(pair);
      const upload = holdUpload(app.mcpUrl, headers, Buffer.byteLength(body));
      try {
        await upload.send(body);
        const params = expectHeldRefusal(
          await within(upload.answer, ANSWER_WITHIN_MS, 'a POST with two Authorization headers'),
          400,
          'invalid_request',
        );
        expect(params.error_description).toBe('Only one Authorization header may be sent');
      } finally {
        upload.destroy();
      }
    }
    expect(app.probe.principals.length).toBe(runs);
    await expectServes(app.mcpUrl, token);
  });

  it('two Authorization headers on the GET of a 2025-11-25 session → 400 invalid_request as well', async () => {
    const response = await new Promise<{ status: number; challenge?: string; body: string }>((resolve, reject) => {
      // fetch joins repeated headers into one; node:http sends an array as that many header lines.
      const outgoing = httpRequest(app.mcpUrl, {
        method: 'GET',
        agent: false,
        headers: [
          ['host', app.mcpUrl.host],
          ['accept', 'text/event-stream'],
          ['mcp-session-id', 'whatever'],
          ['mcp-protocol-version', '2025-11-25'],
          ['authorization', `Bearer ${token}`],
          ['authorization', `Bearer ${token}`],
        ].flat(),
      });
      outgoing.on('response', (incoming) => {
        let body = '';
        incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            challenge: incoming.headers['www-authenticate'] as string | undefined,
            body,
          }),
        );
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(response.status).toBe(400);
    expect(response.challenge).toContain('error="invalid_request"');
    expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    await expectServes(app.mcpUrl, token);
  });

  it.each([
    'access%5Ftoken={token}',
    'access%5ftoken={token}',
    'ACCESS_TOKEN={token}',
    'Access_Token={token}',
    'x=1&acc%65ss_token={token}',
    'access_token%5B%5D={token}',
    'access_token[]={token}',
    'access_token[0]={token}',
  ])('a query token spelled ?%s → 400 invalid_request, even with a valid header; nothing runs', async (query) => {
    const runs = app.probe.principals.length;
    for (const headers of [{}, bearer(token)]) {
      const url = new URL(`${app.mcpUrl}?${query.replace('{token}', token)}`);
      const response = await mcpPost(url, { method: 'tools/call', params: { name: 'whoami', arguments: {} }, headers });
      const params = expectRefusal(response, 400, 'invalid_request');
      expect(params.error_description).toMatch(/query string/);
      expect(response.text).not.toContain(token);
    }
    expect(app.probe.principals.length).toBe(runs);
    await expectServes(app.mcpUrl, token);
  });

  it('query parameters that are not a token are served: ?access_tokens=1, ?not_access_token=1, ?access+token=1', async () => {
    for (const query of ['access_tokens=1', 'not_access_token=1', 'access+token=1']) {
      const response = await callTool({ ...app, mcpUrl: new URL(`${app.mcpUrl}?${query}`) }, 'whoami', bearer(token));
      expect(textOf(expectResult(response, 'tools/call'))).toBe(`principal=${CLIENT.clientId}`);
    }
  });
});

/** A server process forked with `--expose-gc`, that reports its memory over IPC. */
interface MeasuredServer {
  url: URL;
  resource: string;
  memory(): Promise<{ rss: number; retained: number }>;
  kill(): void;
}

async function forkAuthServer(adapter: (typeof ADAPTERS)[number]): Promise<MeasuredServer> {
  const port = await freePort();
  const server: ForkedServer = await forkFixtureServer('test/fixtures/auth-http-main.fixture.ts', [
    adapter,
    String(port),
    as.issuer,
  ]);
  return {
    url: server.url,
    resource: server.url.href,
    memory: async () => {
      const { rss, heapUsed, external, arrayBuffers } = await server.ask<Record<string, number>>('measure', 'memory');
      return { rss, retained: heapUsed + external + arrayBuffers };
    },
    kill: () => server.kill(),
  };
}

const MiB = 1024 * 1024;

describe.each(ADAPTERS)('memory of a real server process under unauthenticated uploads (%s)', (adapter) => {
  let server: MeasuredServer;
  let token: string;

  beforeAll(async () => {
    server = await forkAuthServer(adapter);
    token = await tokenFor(server.resource);
  }, 60_000);
  afterAll(() => server?.kill());

  it('32 connections that declare ~4 MiB without a valid token and send all but its last byte: every one is answered 401, and the server holds none of it', async () => {
    await expectServes(server.url, token);
    const unauthenticated = whoamiRequest();
    const warm = holdUpload(server.url, unauthenticated.headers, Buffer.byteLength(unauthenticated.body));
    await warm.send(unauthenticated.body);
    expectHeldRefusal(await within(warm.answer, ANSWER_WITHIN_MS, 'a warm-up POST without a token'), 401);
    warm.destroy();
    const before = await server.memory();

    const forged = await as.mintBadToken('tampered', { resource: server.resource, scope: 'mcp:read' });
    const uploads = Array.from({ length: 32 }, (_, index) =>
      holdUpload(server.url, whoamiRequest(index % 2 === 0 ? undefined : `Bearer ${forged}`).headers, DECLARED),
    );
    try {
      // An attacker keeps sending: what the server does with the bytes decides its memory.
      await within(
        Promise.all(uploads.map((upload) => upload.send(DECLARED - 1))),
        60_000,
        'the uploads being written',
      );
      const after = await server.memory();
      const grown = { rss: (after.rss - before.rss) / MiB, retained: (after.retained - before.retained) / MiB };
      expect(grown.retained, `retained ${grown.retained.toFixed(1)} MiB more`).toBeLessThan(16);
      expect(grown.rss, `RSS ${grown.rss.toFixed(1)} MiB more`).toBeLessThan(48);

      const answers = await within(
        Promise.all(uploads.map((upload) => upload.answer)),
        ANSWER_WITHIN_MS,
        'the 32 held uploads',
      );
      answers.forEach((answer, index) => expectHeldRefusal(answer, 401, index % 2 === 0 ? undefined : 'invalid_token'));
    } finally {
      for (const upload of uploads) upload.destroy();
    }
    await expectServes(server.url, token);
  }, 120_000);
});
