import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionEndpointId,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type TaskEnabledSession,
  type V2RequestFraming,
} from '@modelcontextprotocol/ext-tasks/client';
import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { MCP_TASK_STORE, type McpTaskStore } from 'nest-mcp/backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extTasksRawDispatch } from '../support/ext-tasks-dispatch.js';
import { AUDIT_SCOPE, TaskAccessModule, TaskAccessProbe } from '../fixtures/task-access.fixture.js';
import { ADAPTERS, type AdapterName } from '../support/app.factory.js';
import { freePort } from '../support/free-port.js';
import {
  connectLegacyClient,
  legacyPost,
  LEGACY_VERSION,
  type LegacyConnection,
} from '../support/legacy-client.factory.js';
import { assertAllLegacyValid, legacyRecordingFetch } from '../support/legacy-schema.validator.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { openStream } from '../support/sse-stream.reader.js';
import { until, untilAsync } from '../support/wait.util.js';

/**
 * Issue #24 ("Security round 3"), items 5, 7 and 8, over real HTTP on both adapters with tokens from a real
 * authorization server (oidc-provider, client credentials: one client, so one principal, with tokens of different
 * scopes), driven by the official client and ext-tasks on both wires:
 *
 * - 5: a task keeps its tool's scopes. The owner's token without them is refused every `tasks/*` method exactly as
 *   `tools/call` refuses it (403 `insufficient_scope` naming the scopes, for step-up), and `tasks/list` and
 *   `subscriptions/listen` leave the task out; when the visibility hook hides the tool, the task answers as an
 *   unknown one.
 * - 7: a task's rounds run as its creator (the verified claims, never the token): the hook that shows a tool to some
 *   tokens only lets its rounds run, and handlers see `ctx.accessToken`.
 * - 8: the 2025-11-25 `initialize` advertises what `server/discover` shows the same caller.
 */

const SCOPES = ['deploy:write', 'docs:read', AUDIT_SCOPE];
const ALPHA = { clientId: 'svc-alpha', clientSecret: 'alpha-secret-0123456789' };
const PROTOCOL = '2026-07-28';
const TASKS_CAPABILITIES = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };
const TASKS_META = requestMeta({ 'io.modelcontextprotocol/clientCapabilities': TASKS_CAPABILITIES });
const clientInfo = { name: 'task-access-e2e', version: '1.0.0' };

/** Splits `Bearer k="v", …` into its parameters. */
function challengeOf(response: { headers: Headers }): Record<string, string> {
  const value = response.headers.get('www-authenticate');
  expect(value, 'WWW-Authenticate').toBeTypeOf('string');
  const params: Record<string, string> = {};
  for (const match of value!.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) params[match[1]] = match[2];
  return params;
}

let as: TestAuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer({ scopes: SCOPES, confidentialClients: [ALPHA] });
});
afterAll(async () => {
  await as?.close();
});

describe.each(ADAPTERS)('task access over HTTP with real tokens (%s)', (adapter: AdapterName) => {
  let app: INestApplication;
  let mcpUrl: URL;
  let resource: string;
  let probe: TaskAccessProbe;
  const tokens = new Map<string, string>();

  /** A token of svc-alpha (always the same principal) with `scope`. */
  async function token(scope: string): Promise<string> {
    if (!tokens.has(scope))
      tokens.set(scope, (await as.clientCredentialsToken({ resource, scope, ...ALPHA })).access_token);
    return tokens.get(scope)!;
  }

  /** A raw 2026-07-28 request that declares the tasks extension. */
  const post = (bearer: string, method: string, params: Record<string, unknown>): Promise<RawResponse> =>
    mcpPost(mcpUrl, {
      method,
      params,
      meta: TASKS_META,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(typeof params.taskId === 'string' && { 'mcp-name': params.taskId }),
      },
    });

  /** The official client and an ext-tasks session on it, as the holder of `bearer`. */
  async function extSession(bearer: string): Promise<{ session: TaskEnabledSession; close(): Promise<void> }> {
    const withToken: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${bearer}`);
      return fetch(input, { ...init, headers });
    };
    const rawDispatch = extTasksRawDispatch(mcpUrl, { authorization: `Bearer ${bearer}` });
    const clientCapabilities = { elicitation: { form: {} } };
    const client = new Client(clientInfo, {
      capabilities: clientCapabilities,
      versionNegotiation: { mode: { pin: PROTOCOL } },
    });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { fetch: withToken }));
    const framing: V2RequestFraming = { protocolVersion: PROTOCOL, clientInfo, clientCapabilities };
    const session = createTaskSessionFromClient(client, {
      endpointId: await createTaskSessionEndpointId('task-access-e2e', { url: mcpUrl.href }),
      rawDispatch,
      v2RequestFraming: framing,
      onInputRequest: createApplicationInputHandler({
        elicitation: async () => ({ action: 'accept', content: { approve: true } as never }),
        sampling: async () => {
          throw new Error('no sampling here');
        },
        roots: async () => ({ roots: [] }),
      }),
    });
    return { session, close: async () => (await session.close(), await client.close()) };
  }

  /** The official client on the 2025-11-25 wire as the holder of `bearer`, with an ext-tasks (v1) session. */
  async function legacySession(
    bearer: string,
  ): Promise<{ connection: LegacyConnection; session: TaskEnabledSession; close(): Promise<void> }> {
    const withToken: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${bearer}`);
      return fetch(input, { ...init, headers });
    };
    const connection = await connectLegacyClient(mcpUrl, {
      capabilities: { elicitation: { form: {} } },
      recorder: legacyRecordingFetch(withToken),
    });
    const session = createTaskSessionFromClient(connection.client, {
      endpointId: `task-access-legacy-${Math.random()}`,
      onInputRequest: createApplicationInputHandler({
        elicitation: async () => ({ action: 'accept', content: { approve: true } }),
        sampling: async () => {
          throw new Error('no sampling here');
        },
        roots: async () => ({ roots: [] }),
      }),
    });
    return {
      connection,
      session,
      close: async () => {
        await assertAllLegacyValid(connection.recorder);
        await session.close();
        await connection.client.close();
      },
    };
  }

  /** What tasks/get answers `bearer` for `taskId` (the raw response). */
  const taskGet = (bearer: string, taskId: string) => post(bearer, 'tasks/get', { taskId });
  const statusIs = async (bearer: string, taskId: string, status: string) =>
    ((await taskGet(bearer, taskId)).json as { result?: { status: string } }).result?.status === status;

  beforeAll(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    const moduleRef = await Test.createTestingModule({
      imports: [TaskAccessModule.serve({ resource, authorizationServers: [as.issuer] })],
    }).compile();
    app =
      adapter === 'fastify'
        ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
        : moduleRef.createNestApplication({ logger: false });
    await app.listen(port, '127.0.0.1');
    mcpUrl = new URL(resource);
    probe = app.get(TaskAccessProbe);
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('finding 5: a task keeps the scopes of its tool', () => {
    it('2026-07-28: the owner without the scopes gets 403 insufficient_scope from tasks/get, tasks/update and tasks/cancel, as from tools/call; with them it goes on', async () => {
      const writer = await token('deploy:write');
      const reader = await token('docs:read');
      const { session, close } = await extSession(writer);
      try {
        const running = await session.callTool(
          'deploy_job',
          { label: 'scoped-modern', ms: 60_000 },
          { task: { preference: 'require' } },
        );
        expect(running.kind).toBe('task');
        const taskId = running.handle!.taskId;
        // Created raw: the ext-tasks session would answer its input request by itself.
        const asking = await post(writer, 'tools/call', { name: 'approve_job', arguments: { label: 'scoped-update' } });
        const askingId = (asking.json as { result: { taskId: string } }).result.taskId;
        await untilAsync(() => statusIs(writer, askingId, 'input_required'), 5_000, 'approve_job to ask');

        const call = await post(reader, 'tools/call', { name: 'deploy_job', arguments: { label: 'direct', ms: 1 } });
        const attempts: Array<[string, Record<string, unknown>]> = [
          ['tasks/get', { taskId }],
          ['tasks/cancel', { taskId }],
          [
            'tasks/update',
            { taskId: askingId, inputResponses: { approval: { action: 'accept', content: { approve: false } } } },
          ],
        ];
        for (const response of [
          call,
          ...(await Promise.all(attempts.map(([method, params]) => post(reader, method, params)))),
        ]) {
          expect(response.status, response.text).toBe(403);
          expect(response.json).toMatchObject({
            error: {
              code: -32600,
              message: expect.stringMatching(
                /^Insufficient scope: Tool "(deploy|approve)_job" needs the scopes: deploy:write$/,
              ),
              data: { requiredScopes: ['deploy:write'] },
            },
          });
          expect(challengeOf(response)).toMatchObject({ error: 'insufficient_scope', scope: 'deploy:write' });
        }
        // Nothing happened to either task, and the server serves the owner's next request.
        expect((await taskGet(writer, taskId)).json).toMatchObject({ result: { taskId, status: 'working' } });
        expect((await taskGet(writer, askingId)).json).toMatchObject({
          result: { taskId: askingId, status: 'input_required' },
        });
        expect(probe.aborted.has('scoped-modern')).toBe(false);
        // The stepped-up token (the creator's) answers, cancels and reads.
        expect((await post(writer, 'tasks/update', attempts[2][1])).json).toMatchObject({ result: {} });
        await untilAsync(() => statusIs(writer, askingId, 'completed'), 5_000, 'approve_job to end');
        expect(((await taskGet(writer, askingId)).json as { result: { result: unknown } }).result.result).toMatchObject(
          { content: [{ text: 'scoped-update: refused' }] },
        );
        await running.cancel();
        await until(() => probe.aborted.has('scoped-modern'), 5_000, 'the cancelled round to see ctx.signal');
        expect((await taskGet(writer, taskId)).json).toMatchObject({ result: { status: 'cancelled' } });
      } finally {
        await close();
      }
    });

    it('2026-07-28: subscriptions/listen acknowledges the task only to a token with its scopes', async () => {
      const writer = await token('deploy:write');
      const reader = await token('docs:read');
      const { session, close } = await extSession(writer);
      try {
        const running = await session.callTool(
          'deploy_job',
          { label: 'scoped-listen', ms: 60_000 },
          { task: { preference: 'require' } },
        );
        const taskId = running.handle!.taskId;
        const acknowledged = async (bearer: string) => {
          const stream = await openStream(mcpUrl, {
            method: 'subscriptions/listen',
            id: `listen-${bearer.length}-${Math.random()}`,
            params: { notifications: { taskIds: [taskId] } },
            meta: TASKS_META,
            headers: { authorization: `Bearer ${bearer}` },
          });
          try {
            const ack = await stream.waitFor(
              (message) => message.method === 'notifications/subscriptions/acknowledged',
              'the acknowledgment',
            );
            return (ack.params as { notifications: Record<string, unknown> }).notifications;
          } finally {
            stream.close();
          }
        };
        expect(await acknowledged(reader)).toEqual({});
        expect(await acknowledged(writer)).toEqual({ taskIds: [taskId] });
        await running.cancel();
      } finally {
        await close();
      }
    });

    it('2025-11-25: on the same session, the token without the scopes gets 403 from tasks/get, tasks/result and tasks/cancel, and tasks/list leaves the task out', async () => {
      const writer = await token('deploy:write');
      const reader = await token('docs:read');
      const { connection, session, close } = await legacySession(writer);
      try {
        const running = await session.callTool(
          'deploy_job',
          { label: 'scoped-legacy', ms: 60_000 },
          { task: { preference: 'require' } },
        );
        expect(running.kind).toBe('task');
        const taskId = running.handle!.taskId;
        const raw = (bearer: string, method: string, params: Record<string, unknown>) =>
          legacyPost(
            mcpUrl,
            { id: `${method}-${Math.random()}`, method, params },
            { sessionId: connection.sessionId, headers: { authorization: `Bearer ${bearer}` } },
          );
        for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
          const refused = await raw(reader, method, { taskId });
          expect(refused.status, `${method}: ${refused.text}`).toBe(403);
          expect(refused.messages[0]).toMatchObject({
            error: { code: -32600, data: { requiredScopes: ['deploy:write'] } },
          });
          expect(challengeOf(refused)).toMatchObject({ error: 'insufficient_scope', scope: 'deploy:write' });
        }
        const listed = (bearer: string) =>
          raw(bearer, 'tasks/list', {}).then((response) =>
            (response.messages[0].result as { tasks: Array<{ taskId: string }> }).tasks.map((task) => task.taskId),
          );
        expect(await listed(reader)).not.toContain(taskId);
        expect(await listed(writer)).toContain(taskId);
        // The session and the task are unharmed: the creator's token reads it, working.
        expect((await raw(writer, 'tasks/get', { taskId })).messages[0]).toMatchObject({
          result: { taskId, status: 'working' },
        });
        await running.cancel();
        await until(() => probe.aborted.has('scoped-legacy'), 5_000, 'the cancelled round to see ctx.signal');
      } finally {
        await close();
      }
    });

    it('a task whose tool the visibility hook hides from the caller answers exactly as an unknown task, on both wires', async () => {
      const auditor = await token(AUDIT_SCOPE);
      const other = await token('docs:read');
      const created = await post(auditor, 'tools/call', { name: 'audited_job', arguments: { label: 'hidden' } });
      const taskId = (created.json as { result: { taskId: string } }).result.taskId;
      expect(taskId).toBeTypeOf('string');
      const unknownId = `${'x'.repeat(taskId.length)}`;
      for (const method of ['tasks/get', 'tasks/cancel']) {
        const hidden = await post(other, method, { taskId });
        const unknown = await post(other, method, { taskId: unknownId });
        expect(hidden.status).toBe(200);
        expect(hidden.json).toMatchObject({
          error: { code: -32602, message: 'Failed to retrieve task: Task not found' },
        });
        expect({ status: hidden.status, error: (hidden.json as { error: unknown }).error }).toEqual({
          status: unknown.status,
          error: (unknown.json as { error: unknown }).error,
        });
      }
      expect((await taskGet(auditor, taskId)).json).toMatchObject({ result: { taskId } });

      // 2025-11-25: a task created on a session by the auditor, asked about on that session with the other token.
      const { connection, close } = await legacySession(auditor);
      try {
        const raw = (bearer: string, method: string, params: Record<string, unknown>) =>
          legacyPost(
            mcpUrl,
            { id: 'same-id', method, params },
            { sessionId: connection.sessionId, headers: { authorization: `Bearer ${bearer}` } },
          );
        const legacyCreated = await raw(auditor, 'tools/call', {
          name: 'audited_job',
          arguments: { label: 'hidden-legacy' },
          task: {},
        });
        const legacyId = (legacyCreated.messages[0].result as { task: { taskId: string } }).task.taskId;
        for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
          const hidden = await raw(other, method, { taskId: legacyId });
          const unknown = await raw(other, method, { taskId: unknownId });
          expect(hidden.status).toBe(200);
          expect(hidden.messages[0]).toMatchObject({
            error: { code: -32602, message: 'Failed to retrieve task: Task not found' },
          });
          expect({ status: hidden.status, text: hidden.text }).toEqual({ status: unknown.status, text: unknown.text });
        }
        const listed = await raw(other, 'tasks/list', {});
        expect(
          (listed.messages[0].result as { tasks: Array<{ taskId: string }> }).tasks.map((task) => task.taskId),
        ).not.toContain(legacyId);
        expect((await raw(auditor, 'tasks/get', { taskId: legacyId })).messages[0]).toMatchObject({
          result: { taskId: legacyId },
        });
      } finally {
        await close();
      }
    });
  });

  describe("finding 7: rounds run as the task's creator", () => {
    it('2026-07-28: a tool the hook shows only to some tokens runs as a task, and its rounds see ctx.accessToken (claims only, dropped at the end)', async () => {
      const auditor = await token(AUDIT_SCOPE);
      const { session, close } = await extSession(auditor);
      try {
        const execution = await session.callTool('audited_job', { label: 'modern' });
        expect(execution.kind).toBe('task');
        const { outcome } = await execution.settle();
        expect(outcome.status).toBe('completed');
        const text = (resultFromTaskOutcome(outcome) as { content: Array<{ text: string }> }).content[0].text;
        expect(JSON.parse(text)).toEqual({
          label: 'modern',
          principal: ALPHA.clientId,
          subject: ALPHA.clientId,
          scopes: [AUDIT_SCOPE],
          clientId: ALPHA.clientId,
        });
        // What the store kept of the token once the task ended: nothing, and never the token itself.
        const stored = await app.get<McpTaskStore>(MCP_TASK_STORE).load(execution.handle!.taskId);
        expect(stored?.accessToken).toBeUndefined();
        expect(JSON.stringify(stored)).not.toContain(auditor);
      } finally {
        await close();
      }
    });

    it('a running task holds the verified claims, not the token; handlers of its rounds see the creator', async () => {
      const writer = await token('deploy:write');
      const created = await post(writer, 'tools/call', { name: 'deploy_job', arguments: { label: 'claims', ms: 300 } });
      const taskId = (created.json as { result: { taskId: string } }).result.taskId;
      const running = await app.get<McpTaskStore>(MCP_TASK_STORE).load(taskId);
      expect(running?.accessToken).toMatchObject({ subject: ALPHA.clientId, scopes: ['deploy:write'] });
      expect(running?.requiredScopes).toEqual(['deploy:write']);
      expect(JSON.stringify(running)).not.toContain(writer);
      await untilAsync(() => statusIs(writer, taskId, 'completed'), 5_000, 'deploy_job to end');
      expect(((await taskGet(writer, taskId)).json as { result: { result: unknown } }).result.result).toMatchObject({
        content: [{ text: `deployed claims as ${ALPHA.clientId}` }],
      });
    });

    it("2025-11-25: the hook-restricted tool runs as a task with its creator's claims", async () => {
      const auditor = await token(AUDIT_SCOPE);
      const { session, close } = await legacySession(auditor);
      try {
        const execution = await session.callTool('audited_job', { label: 'legacy' });
        expect(execution.kind).toBe('task');
        const { outcome } = await execution.settle();
        expect(outcome.status).toBe('completed');
        const text = (resultFromTaskOutcome(outcome) as { content: Array<{ text: string }> }).content[0].text;
        expect(JSON.parse(text)).toMatchObject({ label: 'legacy', subject: ALPHA.clientId, scopes: [AUDIT_SCOPE] });
      } finally {
        await close();
      }
    });
  });

  describe('finding 8: a 2025-11-25 initialize advertises what server/discover shows the same caller', () => {
    /** The capabilities of `initialize` and of `server/discover` for `bearer`. */
    async function both(
      bearer: string,
    ): Promise<{ initialize: Record<string, unknown>; discover: Record<string, unknown> }> {
      const init = await legacyPost(
        mcpUrl,
        { id: 'init', method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo } },
        { headers: { 'mcp-protocol-version': undefined, authorization: `Bearer ${bearer}` } },
      );
      expect(init.status, init.text).toBe(200);
      const discover = await mcpPost(mcpUrl, {
        method: 'server/discover',
        headers: { authorization: `Bearer ${bearer}` },
      });
      expect(discover.status, discover.text).toBe(200);
      return {
        initialize: (init.messages[0].result as { capabilities: Record<string, unknown> }).capabilities,
        discover: (discover.json as { result: { capabilities: Record<string, unknown> } }).result.capabilities,
      };
    }

    it('a reader of docs sees prompts and resources but no tools and no tasks; a deployer the reverse', async () => {
      const docs = await both(await token('docs:read'));
      expect(Object.keys(docs.discover).sort()).toEqual(['completions', 'logging', 'prompts', 'resources']);
      expect(Object.keys(docs.initialize).sort()).toEqual(['completions', 'logging', 'prompts', 'resources']);

      const deployer = await both(await token('deploy:write'));
      expect(Object.keys(deployer.discover).sort()).toEqual(['extensions', 'logging', 'tools']);
      expect(deployer.discover.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
      // 2025-11-25 tasks have their own capability instead of the extension.
      expect(Object.keys(deployer.initialize).sort()).toEqual(['logging', 'tasks', 'tools']);
      expect(deployer.initialize.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });

      // The methods still exist for every caller: a docs reader's session is served (tools/list is empty for it).
      const reader = await token('docs:read');
      const { connection, close } = await legacySession(reader);
      try {
        expect(connection.client.getServerCapabilities()).not.toHaveProperty('tasks');
        expect((await connection.client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['runbook']);
      } finally {
        await close();
      }
    });
  });
});
