import { Test } from '@nestjs/testing';
import { McpPublisher } from 'nest-mcp';
import { McpTestingClient } from 'nest-mcp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthHttpModule, INBOX_URI } from '../fixtures/auth-http.fixture.js';
import { ADAPTERS } from '../support/app.factory.js';
import { type AuthApp, bearer, callTool, startAuthApp } from '../support/auth-app.js';
import { legacyPost, rawInitialize } from '../support/legacy-client.factory.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { openStream, type OpenStream } from '../support/sse-stream.reader.js';
import { expectResult, textOf } from '../support/wire-response.util.js';

/**
 * Security round 3 (issue #24), finding 2: with two trusted authorization servers, each with its own `alice`, the
 * principal is the issuer and the subject (`<issuer>#alice`), so one `alice` never reaches what the other owns: tasks
 * (`tasks/get`, `tasks/cancel` answer as for an unknown task), 2025-11-25 sessions (404), `requestState` (-32602) and
 * listen deliveries addressed by `audience`. Real tokens from two oidc-provider instances, both adapters; each refusal
 * is followed by the owner being served.
 */

/** The same client id — so the same subject, `alice` — at both authorization servers. */
const ALICE_ONE = { clientId: 'alice', clientSecret: 'alice-one-secret-0123456789' };
const ALICE_TWO = { clientId: 'alice', clientSecret: 'alice-two-secret-0123456789' };
const TASKS_META = requestMeta({
  'io.modelcontextprotocol/clientCapabilities': {
    extensions: { 'io.modelcontextprotocol/tasks': {} },
    elicitation: { form: {} },
  },
});

let one: TestAuthorizationServer;
let two: TestAuthorizationServer;

beforeAll(async () => {
  [one, two] = await Promise.all([
    startAuthorizationServer({ confidentialClients: [ALICE_ONE] }),
    startAuthorizationServer({ confidentialClients: [ALICE_TWO] }),
  ]);
});
afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
});

/** A raw 2026-07-28 request of `method` with a token. */
function post(app: AuthApp, token: string, method: string, params: Record<string, unknown>, meta = TASKS_META) {
  const name = typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {};
  return mcpPost(app.mcpUrl, { method, params, meta, headers: { ...bearer(token), ...name } });
}

describe.each(ADAPTERS)('two trusted issuers, one subject each: issuer + subject is the principal (%s)', (adapter) => {
  let app: AuthApp;
  let aliceOne: string;
  let aliceTwo: string;
  const streams: OpenStream[] = [];

  beforeAll(async () => {
    app = await startAuthApp(adapter, (resource) => ({ resource, authorizationServers: [one.issuer, two.issuer] }));
    aliceOne = (await one.clientCredentialsToken({ resource: app.resource, scope: 'mcp:read', ...ALICE_ONE }))
      .access_token;
    aliceTwo = (await two.clientCredentialsToken({ resource: app.resource, scope: 'mcp:read', ...ALICE_TWO }))
      .access_token;
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) {
      stream.close();
      await stream.ended;
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  it('each alice is her issuer and her subject', async () => {
    expect(textOf(expectResult(await callTool(app, 'whoami', bearer(aliceOne)), 'tools/call'))).toBe(
      `principal=${one.issuer}#alice`,
    );
    expect(textOf(expectResult(await callTool(app, 'whoami', bearer(aliceTwo)), 'tools/call'))).toBe(
      `principal=${two.issuer}#alice`,
    );
  });

  it('the other alice neither reads nor cancels a task: tasks/get and tasks/cancel answer as for an unknown task', async () => {
    const created = await post(app, aliceOne, 'tools/call', { name: 'slowJob', arguments: {} });
    expect(created.status, created.text).toBe(200);
    const { result } = created.json as { result: { resultType: string; task?: { taskId: string }; taskId?: string } };
    expect(result.resultType, created.text).toBe('task');
    const taskId = (result.task?.taskId ?? result.taskId)!;
    expect(taskId, created.text).toBeTypeOf('string');

    const unknownGet = await post(app, aliceTwo, 'tasks/get', { taskId: 'no-such-task-000000000000' });
    const unknownCancel = await post(app, aliceTwo, 'tasks/cancel', { taskId: 'no-such-task-000000000000' });
    for (const [foreign, unknown] of [
      [await post(app, aliceTwo, 'tasks/get', { taskId }), unknownGet],
      [await post(app, aliceTwo, 'tasks/cancel', { taskId }), unknownCancel],
    ]) {
      expect(foreign.status).toBe(unknown.status);
      expect((foreign.json as any).error, foreign.text).toMatchObject({ code: -32602 });
      expect((foreign.json as any).error.message).toBe((unknown.json as any).error.message);
    }

    // Still running for its owner, who may cancel it.
    const owned = await post(app, aliceOne, 'tasks/get', { taskId });
    expect(owned.status, owned.text).toBe(200);
    expect((owned.json as { result: { status: string } }).result.status).toBe('working');
    const cancelled = await post(app, aliceOne, 'tasks/cancel', { taskId });
    expect((cancelled.json as { error?: unknown }).error, cancelled.text).toBeUndefined();
  });

  it('a 2025-11-25 session of one alice is 404 to the other, as an unknown session, and still serves its own', async () => {
    const { sessionId, response } = await rawInitialize(app.mcpUrl, { headers: bearer(aliceOne) });
    expect(response.status, response.text).toBe(200);
    const ping = (token: string, id: string) =>
      legacyPost(app.mcpUrl, { jsonrpc: '2.0', id: 'ping', method: 'ping' }, { sessionId: id, headers: bearer(token) });
    const foreign = await ping(aliceTwo, sessionId);
    const unknown = await ping(aliceTwo, 'no-such-session');
    expect(foreign.status).toBe(404);
    expect(foreign.messages[0]?.error?.message).toBe(unknown.messages[0]?.error?.message);
    const own = await ping(aliceOne, sessionId);
    expect(own.status).toBe(200);
    expect(own.messages[0]?.result).toEqual({});
  });

  it('a requestState of one alice is refused for the other (-32602), and completes for its own', async () => {
    const meta = requestMeta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } });
    const first = await post(app, aliceOne, 'tools/call', { name: 'transfer', arguments: { amount: 9 } }, meta);
    const { requestState } = expectResult<{ requestState: string }>(first, 'tools/call');
    const answers = { approve: { action: 'accept', content: { approve: true } } };
    const retry = (token: string) =>
      post(
        app,
        token,
        'tools/call',
        { name: 'transfer', arguments: { amount: 9 }, requestState, inputResponses: answers },
        meta,
      );
    const foreign = await retry(aliceTwo);
    expect(foreign.status).toBe(200);
    expect((foreign.json as any).error).toMatchObject({
      code: -32602,
      message: 'Invalid requestState: it belongs to another caller',
    });
    expect(app.probe.transfers).not.toContain(9);
    expect(textOf(expectResult(await retry(aliceOne), 'tools/call'))).toBe(`transferred 9 for ${one.issuer}#alice`);
  });

  it('an update addressed to one alice reaches her listener only', async () => {
    const listen = async (token: string, id: string) => {
      const stream = await openStream(app.mcpUrl, {
        method: 'subscriptions/listen',
        id,
        params: { notifications: { resourceSubscriptions: [INBOX_URI], toolsListChanged: true } },
        headers: bearer(token),
      });
      streams.push(stream);
      expect(stream.status, stream.raw).toBe(200);
      await stream.nextFrames(1);
      return stream;
    };
    const heardByOne = await listen(aliceOne, 'one');
    const heardByTwo = await listen(aliceTwo, 'two');
    const notifiedOne = await callTool(app, 'notifyMe', bearer(aliceOne));
    const notifiedTwo = await callTool(app, 'notifyMe', bearer(aliceTwo));
    // Each hears exactly one update, her own: the second publish reached both streams before this list-changed barrier.
    await app.app.get(McpPublisher).toolsListChanged();
    for (const stream of [heardByOne, heardByTwo])
      await stream.waitFor((message) => message.method === 'notifications/tools/list_changed', 'the barrier');
    expect(heardByOne.messages.slice(1).filter((message) => message.params?.uri === INBOX_URI)).toHaveLength(1);
    expect(heardByTwo.messages.slice(1).filter((message) => message.params?.uri === INBOX_URI)).toHaveLength(1);
    expect(textOf(expectResult(notifiedOne, 'tools/call'))).toBe(`notified ${one.issuer}#alice`);
    expect(textOf(expectResult(notifiedTwo, 'tools/call'))).toBe(`notified ${two.issuer}#alice`);
  });

  it('auth.principal still decides when it answers, and falls back to issuer + subject when it returns undefined', async () => {
    const mapped = await startAuthApp(adapter, (resource) => ({
      resource,
      authorizationServers: [one.issuer, two.issuer],
      principal: (token) => (token.issuer === one.issuer ? `tenant-one/${token.subject}` : undefined),
    }));
    try {
      const tokenOne = (
        await one.clientCredentialsToken({ resource: mapped.resource, scope: 'mcp:read', ...ALICE_ONE })
      ).access_token;
      const tokenTwo = (
        await two.clientCredentialsToken({ resource: mapped.resource, scope: 'mcp:read', ...ALICE_TWO })
      ).access_token;
      expect(textOf(expectResult(await callTool(mapped, 'whoami', bearer(tokenOne)), 'tools/call'))).toBe(
        'principal=tenant-one/alice',
      );
      expect(textOf(expectResult(await callTool(mapped, 'whoami', bearer(tokenTwo)), 'tools/call'))).toBe(
        `principal=${two.issuer}#alice`,
      );
    } finally {
      await mapped.close();
    }
  });
});

describe('the testing kit derives the same principal', () => {
  it('caller.issuer qualifies the subject when several issuers are trusted, and is required then', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthHttpModule.serve({
          auth: {
            resource: 'http://127.0.0.1:1/mcp',
            authorizationServers: ['http://127.0.0.1:2', 'http://127.0.0.1:3'],
          },
        }),
      ],
    }).compile();
    const client = await McpTestingClient.create(moduleRef);
    try {
      const result = await client.as({ subject: 'alice', issuer: 'http://127.0.0.1:3' }).callTool('whoami', {});
      expect(result.text()).toBe('principal=http://127.0.0.1:3#alice');
      await expect(client.as({ subject: 'alice' }).callTool('whoami', {})).rejects.toThrow(/caller\.issuer/);
    } finally {
      await moduleRef.close();
    }
  });
});
