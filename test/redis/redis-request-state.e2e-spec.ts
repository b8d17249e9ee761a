import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, McpErrorCode } from 'nest-mcp';
import { RedisRequestStateStore } from 'nest-mcp-redis';
import { RedisReplicaModule, ReplicaProbe } from '../fixtures/redis-bus.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { closeReplica, replicasReconnected } from '../support/redis-replicas.js';
import { expectError, expectResult, textOf } from '../support/wire-response.util.js';

/**
 * Multi Round-Trip Requests across two replicas sharing Redis (`McpRedis.serverOptions`: the Redis single-use
 * `requestState` store and shared keys): a round whose first call reaches A and whose retry reaches B completes
 * (the official client, behind a router that sends retries to the other replica); a state is accepted once across
 * replicas (a replay on either is -32602 "already used" and the side effect does not run again); one caller holds at
 * most `requestState.maxStatesPerCaller` live states (HTTP 429 with `retryAfterSeconds`); Redis down refuses the
 * retry with HTTP 503 instead of accepting it unrecorded; and the store checks what it is given.
 */

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const FORM = { elicitation: { form: {} } };
const APPROVE = { approve: { action: 'accept', content: { approve: true } } };

/** Round one of `transfer` on `app` as `user`: returns its requestState. */
async function firstRound(app: RunningApp, amount: number, user?: string): Promise<string> {
  const response = await mcpPost(app.mcpUrl, {
    method: 'tools/call',
    params: { name: 'transfer', arguments: { amount } },
    meta: requestMeta({ [CAPS]: FORM }),
    headers: user ? { 'x-user': user } : undefined,
  });
  const result = expectResult<{ resultType: string; requestState: string }>(response, 'tools/call');
  expect(result.resultType).toBe('input_required');
  return result.requestState;
}

/** The retry of `transfer` on `app` with the approval and `requestState`. */
function retry(app: RunningApp, requestState: string, amount: number, user?: string): Promise<RawResponse> {
  return mcpPost(app.mcpUrl, {
    method: 'tools/call',
    params: { name: 'transfer', arguments: { amount }, requestState, inputResponses: APPROVE },
    meta: requestMeta({ [CAPS]: FORM }),
    headers: user ? { 'x-user': user } : undefined,
  });
}

/** What `call` rejects with; fails the test when it resolves. */
async function rejection(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject');
}

describe.each(ADAPTERS)('single-use requestState on Redis across two replicas (%s)', (adapter) => {
  let redis: RedisServer;
  let a: RunningApp;
  let b: RunningApp;
  const clients: Client[] = [];
  const transfers = (app: RunningApp) => app.app.get(ReplicaProbe).transfers;

  beforeAll(async () => {
    redis = await startRedisServer();
    const options = { url: redis.url, commandTimeoutMs: 1_000, requestState: { maxStatesPerCaller: 3 } };
    a = await startApp(adapter, { imports: [RedisReplicaModule.serve(options)] });
    b = await startApp(adapter, { imports: [RedisReplicaModule.serve(options)] });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    for (const app of [a, b]) if (app) await closeReplica(app);
    await redis?.dispose();
  });

  it('the official client completes a round whose first call reaches A and whose retry reaches B', async () => {
    const reached: string[] = [];
    // A router without affinity: a retry (it carries requestState) goes to B, everything else to A.
    const router: typeof fetch = async (_input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      const toB = body.includes('"requestState"');
      const method = (JSON.parse(body || '{}') as { method?: string }).method;
      if (method === 'tools/call') reached.push(toB ? 'B' : 'A');
      const target = toB ? b.mcpUrl : a.mcpUrl;
      return fetch(target, init);
    };
    const client = await connectClient(a.mcpUrl, { capabilities: FORM, fetch: router });
    clients.push(client);
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    const before = { a: a.app.get(ReplicaProbe).rounds, b: b.app.get(ReplicaProbe).rounds };

    const result = await client.callTool({ name: 'transfer', arguments: { amount: 42 } });

    expect(result.content).toEqual([{ type: 'text', text: 'transferred 42' }]);
    expect(asked).toEqual(['Transfer 42?']);
    expect(reached).toEqual(['A', 'B']);
    expect(a.app.get(ReplicaProbe).rounds - before.a).toBe(1);
    expect(b.app.get(ReplicaProbe).rounds - before.b).toBe(1);
    expect(transfers(b)).toContain('42');
  });

  it('a state is accepted once across replicas: replays on A and on B are -32602 "already used", the transfer runs once', async () => {
    const state = await firstRound(a, 7);
    expect(textOf(expectResult(await retry(b, state, 7), 'tools/call'))).toBe('transferred 7');
    for (const replica of [a, b]) {
      const error = expectError(await retry(replica, state, 7), 200, McpErrorCode.InvalidParams);
      expect(error.message).toMatch(/already used/);
    }
    expect([...transfers(a), ...transfers(b)].filter((amount) => amount === '7')).toEqual(['7']);
  });

  it('of two concurrent retries with one state on A and B, exactly one goes through', async () => {
    const state = await firstRound(a, 8);
    const answers = await Promise.all([retry(a, state, 8), retry(b, state, 8)]);
    const outcomes = answers.map((answer) =>
      (answer.json as { result?: unknown }).result
        ? 'ok'
        : (answer.json as { error: { message: string } }).error.message,
    );
    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(1);
    expect(outcomes.find((outcome) => outcome !== 'ok')).toMatch(/already used/);
  });

  it('one caller holds at most maxStatesPerCaller live states (429 with retryAfterSeconds); others are not affected', async () => {
    const states = [];
    for (const amount of [101, 102, 103, 104]) states.push(await firstRound(a, amount, 'carol'));
    for (const [index, amount] of [101, 102, 103].entries()) {
      expect(textOf(expectResult(await retry(index % 2 ? a : b, states[index], amount, 'carol'), 'tools/call'))).toBe(
        `transferred ${amount}`,
      );
    }
    const refused = await retry(b, states[3], 104, 'carol');
    const error = expectError(refused, 429, McpErrorCode.InternalError);
    expect(error.message).toMatch(/maxStatesPerCaller/);
    const data = error.data as { retryAfterSeconds: number };
    expect(Number.isInteger(data.retryAfterSeconds) && data.retryAfterSeconds >= 1).toBe(true);
    expect(refused.headers.get('retry-after')).toBe(String(data.retryAfterSeconds));
    // The refused state was not recorded, and another caller still goes through.
    const dave = await firstRound(b, 105, 'dave');
    expect(textOf(expectResult(await retry(a, dave, 105, 'dave'), 'tools/call'))).toBe('transferred 105');
  });

  it('checks what it is given: a bad id or expiry is -32602, an expired state is refused, never accepted', async () => {
    const store = a.app.get(RedisRequestStateStore);
    const future = Date.now() + 60_000;
    for (const [stateId, expiresAt] of [
      ['', future],
      ['x'.repeat(257), future],
      [42, future],
      ['ok-id', Number.NaN],
      ['ok-id', Infinity],
      ['ok-id', '1'],
    ] as const) {
      const error = await rejection(() => store.consume(stateId as string, expiresAt as number, 'p:alice'));
      expect(error, `${String(stateId).slice(0, 10)} ${String(expiresAt)}`).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(McpErrorCode.InvalidParams);
    }
    const expired = await rejection(() => store.consume('expired-id', Date.now() - 1, 'p:alice'));
    expect((expired as McpError).message).toBe('Invalid requestState: expired');
    // Without a caller the bound does not apply, but single use does.
    expect(await store.consume('anonymous-id', future)).toBe(true);
    expect(await b.app.get(RedisRequestStateStore).consume('anonymous-id', future)).toBe(false);
  });

  it('Redis down: the retry is refused with 503 "requestState store unavailable" (never accepted), and works once Redis is back', async () => {
    const state = await firstRound(a, 9);
    await redis.stop();
    try {
      const refused = await retry(b, state, 9);
      const error = expectError(refused, 503, McpErrorCode.InternalError);
      expect(error.message).toMatch(/^requestState store unavailable/);
      expect(transfers(b)).not.toContain('9');
    } finally {
      await redis.start();
    }
    // The state was never recorded: once Redis is back (and the client reconnected), the same retry goes through.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const answer = await retry(b, state, 9);
      if ((answer.json as { result?: unknown }).result) {
        expect(textOf(expectResult(answer, 'tools/call'))).toBe('transferred 9');
        break;
      }
      expectError(answer, 503, McpErrorCode.InternalError);
      if (Date.now() > deadline) throw new Error('the requestState store did not come back after Redis restarted');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await replicasReconnected([a, b]);
  });
});
