import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_SCOPE, TaskAccessModule, TaskAccessProbe } from '../fixtures/task-access.fixture.js';
import { taskRecordsOnRedis } from '../fixtures/task-records.fixture.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../support/app.factory.js';
import { freePort } from '../support/free-port.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { RecordingLogger } from '../support/recording.logger.js';
import { closeReplica } from '../support/redis-replicas.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { until, untilAsync } from '../support/wait.util.js';

/**
 * Issue #24 on the Redis task store and the BullMQ runner (nest-mcp-redis), with a real redis-server and, for the
 * token cases, a real authorization server (oidc-provider):
 *
 * - item 6: the same `tasks.maxRecordBytes` bound as in memory (413 `-32602` on create and on `tasks/update`), and an
 *   ended task's Redis record holds no arguments, answers or token claims;
 * - item 5: the scopes recorded with the task survive the store: the owner's token without them gets 403;
 * - item 7: rounds taken by the BullMQ worker run as the creator (the hook-restricted tool runs, `ctx.accessToken`),
 *   and Redis holds the verified claims, never the token;
 * - "Also" (a): `tasks/cancel` of a round running on the BullMQ worker logs no error, one debug line.
 */

const KiB = 1024;
const LIMIT = 64 * KiB;
const TASKS_META = requestMeta({
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: { form: {} },
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  },
});
const ALPHA = { clientId: 'svc-alpha', clientSecret: 'alpha-secret-0123456789' };

/** A raw 2026-07-28 request that declares the tasks extension, with `headers` (caller). */
function post(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<RawResponse> {
  return mcpPost(url, {
    method,
    params,
    meta: TASKS_META,
    headers: { ...headers, ...(typeof params.taskId === 'string' && { 'mcp-name': params.taskId }) },
  });
}

let redis: RedisServer;
let probe: Redis;
let as: TestAuthorizationServer;
beforeAll(async () => {
  redis = await startRedisServer();
  probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  probe.on('error', () => undefined);
  await probe.connect();
  as = await startAuthorizationServer({
    scopes: ['deploy:write', 'docs:read', AUDIT_SCOPE],
    confidentialClients: [ALPHA],
  });
});
afterAll(async () => {
  probe?.disconnect();
  await redis?.dispose();
  await as?.close();
});

/** The task's record as Redis holds it (the raw JSON string), or null. */
const rawRecord = (prefix: string, taskId: string) => probe.get(`${prefix}:task:${taskId}`);

describe.each(ADAPTERS)('task records on Redis (%s)', (adapter: AdapterName) => {
  const prefix = `records-${adapter}`;
  const alice = { 'x-user': 'alice' };
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(adapter, {
      imports: [
        taskRecordsOnRedis(
          { url: redis.url, keyPrefix: prefix, commandTimeoutMs: 2_000 },
          { tasks: { maxRecordBytes: LIMIT } },
        ),
      ],
    });
  });
  afterAll(async () => {
    if (running) await closeReplica(running);
  });

  const taskOf = async (taskId: string) =>
    ((await post(running.mcpUrl, 'tasks/get', { taskId }, alice)).json as { result: Record<string, unknown> }).result;

  /** Checks the refusal of a record too large (HTTP 413, -32602). */
  function expectTooLarge(response: RawResponse): void {
    expect(response.status, response.text.slice(0, 300)).toBe(413);
    expect(response.json).toMatchObject({
      error: { code: -32602, data: { limit: LIMIT }, message: expect.stringContaining('tasks.maxRecordBytes') },
    });
  }

  it('item 6: tools/call and tasks/update over the bound are refused with 413 -32602; the ended record in Redis keeps no arguments or answers', async () => {
    expectTooLarge(
      await post(
        running.mcpUrl,
        'tools/call',
        { name: 'keep_job', arguments: { pad: 'x'.repeat(LIMIT + KiB) } },
        alice,
      ),
    );
    const created = await post(
      running.mcpUrl,
      'tools/call',
      { name: 'keep_job', arguments: { ask: true, pad: 'y'.repeat(LIMIT / 4) } },
      alice,
    );
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    await untilAsync(async () => (await taskOf(taskId)).status === 'input_required', 10_000, 'the task to ask');
    const [key] = Object.keys((await taskOf(taskId)).inputRequests as object);
    expectTooLarge(
      await post(
        running.mcpUrl,
        'tasks/update',
        { taskId, inputResponses: { [key]: { action: 'accept', content: { note: 'z'.repeat(LIMIT) } } } },
        alice,
      ),
    );
    expect((await taskOf(taskId)).status).toBe('input_required');
    expect(await rawRecord(prefix, taskId)).toContain('y'.repeat(LIMIT / 4));
    const answered = await post(
      running.mcpUrl,
      'tasks/update',
      { taskId, inputResponses: { [key]: { action: 'accept', content: { note: 'z'.repeat(KiB) } } } },
      alice,
    );
    expect(answered.json).toMatchObject({ result: {} });
    await untilAsync(async () => (await taskOf(taskId)).status === 'completed', 10_000, 'the task to complete');
    const stored = JSON.parse((await rawRecord(prefix, taskId))!) as Record<string, unknown>;
    expect(stored).toMatchObject({
      status: 'completed',
      params: { name: 'keep_job' },
      answers: {},
      issuedKeys: [],
      result: { content: [{ text: `noted ${KiB} character(s)` }] },
    });
    expect(stored.params).not.toHaveProperty('arguments');
    expect(JSON.stringify(stored).length).toBeLessThan(2 * KiB);
  });
});

describe.each(ADAPTERS)('task access on Redis and BullMQ with real tokens (%s)', (adapter: AdapterName) => {
  const prefix = `access-${adapter}`;
  let app: INestApplication;
  let mcpUrl: URL;
  let resource: string;
  let taskProbe: TaskAccessProbe;
  const logger = new RecordingLogger();
  const tokens = new Map<string, string>();

  async function token(scope: string): Promise<string> {
    if (!tokens.has(scope))
      tokens.set(scope, (await as.clientCredentialsToken({ resource, scope, ...ALPHA })).access_token);
    return tokens.get(scope)!;
  }
  const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
  const taskOf = async (value: string, taskId: string) =>
    ((await post(mcpUrl, 'tasks/get', { taskId }, bearer(value))).json as { result: Record<string, unknown> }).result;

  beforeAll(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    const moduleRef = await Test.createTestingModule({
      imports: [
        TaskAccessModule.onRedis(
          { url: redis.url, keyPrefix: prefix, commandTimeoutMs: 2_000 },
          { resource, authorizationServers: [as.issuer] },
        ),
      ],
    }).compile();
    app =
      adapter === 'fastify'
        ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
        : moduleRef.createNestApplication({ logger: false });
    await app.listen(port, '127.0.0.1');
    app.useLogger(logger);
    mcpUrl = new URL(resource);
    taskProbe = app.get(TaskAccessProbe);
  });
  afterAll(async () => {
    if (app) await closeReplica({ app, baseUrl: '', mcpUrl, close: () => app.close() });
  });
  beforeEach(() => {
    logger.errors.length = 0;
    logger.debugs.length = 0;
  });

  it('item 7: a tool the hook shows only to some tokens runs on the BullMQ worker as its creator; Redis holds the claims, not the token', async () => {
    const auditor = await token(AUDIT_SCOPE);
    const created = await post(
      mcpUrl,
      'tools/call',
      { name: 'audited_job', arguments: { label: 'redis' } },
      bearer(auditor),
    );
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    await untilAsync(
      async () => ['completed', 'failed'].includes(String((await taskOf(auditor, taskId)).status)),
      10_000,
      'the task to end',
    );
    const ended = await taskOf(auditor, taskId);
    expect(ended.status, JSON.stringify(ended)).toBe('completed');
    const text = (ended.result as { content: Array<{ text: string }> }).content[0].text;
    expect(JSON.parse(text)).toEqual({
      label: 'redis',
      principal: ALPHA.clientId,
      subject: ALPHA.clientId,
      scopes: [AUDIT_SCOPE],
      clientId: ALPHA.clientId,
    });
    const stored = (await rawRecord(prefix, taskId))!;
    expect(stored).not.toContain(auditor);
    expect(JSON.parse(stored)).not.toHaveProperty('accessToken');
  });

  it('items 5 and 7: a running task in Redis keeps the scopes and the claims; the owner without the scopes gets 403', async () => {
    const writer = await token('deploy:write');
    const reader = await token('docs:read');
    const created = await post(
      mcpUrl,
      'tools/call',
      { name: 'deploy_job', arguments: { label: 'redis-scoped', ms: 60_000 } },
      bearer(writer),
    );
    const taskId = (created.json as { result: { taskId: string } }).result.taskId;
    await until(() => taskProbe.started.has('redis-scoped'), 10_000, 'the round to start');
    const stored = (await rawRecord(prefix, taskId))!;
    expect(stored).not.toContain(writer);
    expect(JSON.parse(stored)).toMatchObject({
      requiredScopes: ['deploy:write'],
      accessToken: { subject: ALPHA.clientId, scopes: ['deploy:write'] },
    });
    const refused = await post(mcpUrl, 'tasks/get', { taskId }, bearer(reader));
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: { code: -32600, data: { requiredScopes: ['deploy:write'] } } });
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');

    // "Also" (a): cancelling the round that runs on the BullMQ worker logs no error, one debug line.
    const cancelled = await post(mcpUrl, 'tasks/cancel', { taskId }, bearer(writer));
    expect(cancelled.json).toMatchObject({ result: {} });
    await until(() => taskProbe.aborted.has('redis-scoped'), 10_000, 'the round to see ctx.signal');
    await until(
      () =>
        logger.debugs.some((line) => line.startsWith('Handler "deploy" ended after its call was cancelled')) ||
        logger.errors.length > 0,
      10_000,
      'the end of the round',
    );
    expect(logger.errors).toEqual([]);
    expect((await taskOf(writer, taskId)).status).toBe('cancelled');
    const next = await post(
      mcpUrl,
      'tools/call',
      { name: 'deploy_job', arguments: { label: 'redis-next', ms: 1 } },
      bearer(writer),
    );
    const nextId = (next.json as { result: { taskId: string } }).result.taskId;
    await untilAsync(async () => (await taskOf(writer, nextId)).status === 'completed', 10_000, 'the next task');
    expect(((await taskOf(writer, nextId)).result as { content: Array<{ text: string }> }).content[0].text).toBe(
      `deployed redis-next as ${ALPHA.clientId}`,
    );
  });
});
