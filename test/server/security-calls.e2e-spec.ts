import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpModuleOptions } from 'nest-mcp';
import { McpCallTracker } from '../../libs/mcp/src/server/call.tracker.js';
import { CallLatch, callsModule } from '../fixtures/calls-latch.fixture.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../support/app.factory.js';
import { legacyPost, rawInitialize } from '../support/legacy-client.factory.js';
import { mcpHeaders, requestMeta } from '../support/raw-request.util.js';
import { listen } from '../support/sse-stream.reader.js';
import { until } from '../support/wait.util.js';
import { assertValidServerMessage } from '../support/wire-schema.validator.js';

/**
 * Calls in flight (issue #13, item 6): one client cannot start unbounded concurrent calls. A principal (or, for an
 * anonymous caller, a remote address) holds at most its share; the server as a whole at most `maxCallsInFlight`.
 * A refusal is HTTP 429 (the caller's share) or 503 (the server's cap) with `Retry-After` and JSON-RPC -32603 naming
 * the limit and its option; slots come back when the answer went out, the client went away or the call timed out.
 * Both wires count (2026-07-28 and 2025-11-25 sessions); listen streams do not.
 */

/** The JSON-RPC code of a refusal for load: the same as the other capacity refusals (sessions, listen streams). */
const OVERLOADED = -32603;

interface CallAnswer {
  status: number;
  headers: Headers;
  body: {
    id?: unknown;
    result?: { content?: Array<{ text?: string }> };
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
}

let nextId = 1;

/**
 * A 2026-07-28 `tools/call`, as `user` (anonymous when undefined), read to its end. A call a failed test left behind
 * rejects when the app closes: that is not reported as an unhandled rejection.
 */
function call(url: URL, tool: string, user?: string, signal?: AbortSignal): Promise<CallAnswer> {
  const answer = callOnce(url, tool, user, signal);
  answer.catch(() => undefined);
  return answer;
}

async function callOnce(url: URL, tool: string, user?: string, signal?: AbortSignal): Promise<CallAnswer> {
  const id = `c-${nextId++}`;
  const params = { name: tool, arguments: {}, _meta: requestMeta() };
  const headers: Record<string, string> = {
    ...mcpHeaders('tools/call', params),
    ...(user !== undefined && { 'x-user': user }),
  };
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    signal,
  });
  const body = JSON.parse(await response.text()) as CallAnswer['body'];
  assertValidServerMessage(body, 'tools/call');
  expect(body.id).toBe(id);
  return { status: response.status, headers: response.headers, body };
}

/** Checks a refusal: status, `Retry-After`, the JSON-RPC code, `data.retryAfterSeconds`, the option named. */
function expectRefused(answer: CallAnswer, status: 429 | 503, option: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('retry-after')).toBe('1');
  expect(answer.body.error?.code).toBe(OVERLOADED);
  expect(answer.body.error?.data).toEqual({ retryAfterSeconds: 1 });
  expect(answer.body.error?.message).toContain(option);
  expect(answer.body.error?.message).toMatch(/retry/i);
}

/** Checks a call that was served. */
function expectServed(answer: CallAnswer, text: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.result?.content?.[0]?.text).toBe(text);
}

describe.each(ADAPTERS)('calls in flight (%s)', (adapter: AdapterName) => {
  let running: RunningApp | undefined;
  let latch: CallLatch;
  let tracker: McpCallTracker;

  async function serve(options: Partial<McpModuleOptions>): Promise<URL> {
    running = await startApp(adapter, { imports: [callsModule(options)] });
    latch = running.app.get(CallLatch);
    tracker = running.app.get(McpCallTracker);
    return running.mcpUrl;
  }

  /** Starts `count` held calls as `user` and waits until their handlers run. */
  async function hold(
    url: URL,
    count: number,
    user?: string,
    tool = 'hold',
    signal?: AbortSignal,
  ): Promise<Array<Promise<CallAnswer>>> {
    const before = latch.waiting;
    const calls = Array.from({ length: count }, () => call(url, tool, user, signal));
    await until(
      () => latch.waiting === before + count,
      3_000,
      `${count} held calls of ${user ?? 'an anonymous caller'}`,
    );
    return calls;
  }

  afterEach(async () => {
    latch?.open();
    // A spare keep-alive connection of fetch must not hold up the close.
    (running?.app.getHttpServer() as Server | undefined)?.closeAllConnections();
    await running?.close();
    running = undefined;
  });

  it('a principal gets 429 past maxCallsInFlightPerPrincipal while another principal is served; served again after', async () => {
    const url = await serve({ maxCallsInFlightPerPrincipal: 3 });
    const held = await hold(url, 3, 'alice');
    expect(tracker.counted).toBe(3);

    expectRefused(await call(url, 'ping', 'alice'), 429, 'maxCallsInFlightPerPrincipal');
    expectServed(await call(url, 'ping', 'bob'), 'pong');
    expect(tracker.counted).toBe(3);

    latch.open();
    for (const answer of await Promise.all(held)) expectServed(answer, 'released');
    expect(tracker.counted).toBe(0);
    expectServed(await call(url, 'ping', 'alice'), 'pong');
  });

  it('an anonymous caller gets 429 past maxCallsInFlightPerAddress; a principal on the same address is not counted with it', async () => {
    const url = await serve({ maxCallsInFlightPerAddress: 2 });
    const held = await hold(url, 2);

    expectRefused(await call(url, 'ping'), 429, 'maxCallsInFlightPerAddress');
    expectServed(await call(url, 'ping', 'alice'), 'pong');

    latch.open();
    for (const answer of await Promise.all(held)) expectServed(answer, 'released');
    expectServed(await call(url, 'ping'), 'pong');
  });

  it('everyone gets 503 past maxCallsInFlight; served again once the held calls finish', async () => {
    const url = await serve({ maxCallsInFlight: 3, maxCallsInFlightPerPrincipal: 2 });
    const held = [...(await hold(url, 2, 'alice')), ...(await hold(url, 1, 'bob'))];

    expectRefused(await call(url, 'ping', 'carol'), 503, 'maxCallsInFlight');
    expectRefused(await call(url, 'ping'), 503, 'maxCallsInFlight');

    latch.open();
    for (const answer of await Promise.all(held)) expectServed(answer, 'released');
    expect(tracker.counted).toBe(0);
    expectServed(await call(url, 'ping', 'carol'), 'pong');
  });

  it('listen streams are not counted as calls in flight', async () => {
    const url = await serve({ maxCallsInFlightPerPrincipal: 1 });
    const held = await hold(url, 1, 'alice');
    const stream = await listen(url, 'alice-listen', { resourcesListChanged: true }, undefined);
    try {
      expect(stream.status).toBe(200);
      const [ack] = await stream.nextFrames(1);
      expect(ack.method).toBe('notifications/subscriptions/acknowledged');
    } finally {
      stream.close();
      await stream.ended;
    }
    expect(tracker.counted).toBe(1);
    latch.open();
    expectServed((await Promise.all(held))[0], 'released');
  });

  it('clients that disconnect give their slots back: the cap can be filled again exactly', async () => {
    const url = await serve({ maxCallsInFlightPerPrincipal: 2 });
    const controller = new AbortController();
    const gone = await hold(url, 2, 'alice', 'hold', controller.signal);
    controller.abort();
    await Promise.allSettled(gone);
    await until(() => tracker.counted === 0 && latch.waiting === 0, 3_000, 'the disconnected calls to be released');

    const held = await hold(url, 2, 'alice');
    expectRefused(await call(url, 'ping', 'alice'), 429, 'maxCallsInFlightPerPrincipal');
    latch.open();
    for (const answer of await Promise.all(held)) expectServed(answer, 'released');
    expectServed(await call(url, 'ping', 'alice'), 'pong');
  });

  it('timed-out calls give their slots back, even when their handlers ignore the signal', async () => {
    const url = await serve({ maxCallsInFlightPerPrincipal: 2, callTimeoutMs: 300 });
    const timedOut = await hold(url, 2, 'alice', 'stubborn');
    for (const answer of await Promise.all(timedOut)) {
      expect(answer.status).toBe(200);
      expect(answer.body.error?.code).toBe(-32603);
      expect(answer.body.error?.message).toMatch(/timed out/);
    }
    // The stubborn handlers still wait; their calls are answered and no longer counted.
    expect(latch.waiting).toBe(2);
    expect(tracker.counted).toBe(0);

    const held = await hold(url, 2, 'alice');
    expectRefused(await call(url, 'ping', 'alice'), 429, 'maxCallsInFlightPerPrincipal');
    latch.open();
    for (const answer of await Promise.all(held)) expectServed(answer, 'released');
    expectServed(await call(url, 'ping', 'alice'), 'pong');
  });

  it('after many refused and cancelled calls every count is back to zero', async () => {
    // The shares add up to the total: whichever refuses first, exactly two calls per caller get in.
    const url = await serve({ maxCallsInFlight: 6, maxCallsInFlightPerPrincipal: 2, maxCallsInFlightPerAddress: 2 });
    const controller = new AbortController();
    const callers = ['alice', 'bob', undefined];
    const refused: CallAnswer[] = [];
    const storm = callers.flatMap((user) =>
      Array.from({ length: 20 }, () =>
        call(url, 'hold', user, controller.signal).then(
          (answer) => void refused.push(answer),
          () => undefined,
        ),
      ),
    );
    await until(() => refused.length === 54 && latch.waiting === 6, 5_000, 'six held calls and 54 refusals');
    for (const answer of refused) {
      expect([429, 503]).toContain(answer.status);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.body.error?.code).toBe(OVERLOADED);
    }
    expect(latch.started).toBe(6);
    expect(latch.waiting).toBe(6);
    expect(tracker.counted).toBe(6);
    controller.abort();
    await Promise.all(storm);
    await until(
      () => tracker.counted === 0 && tracker.size === 0 && latch.waiting === 0,
      3_000,
      'every slot to come back',
    );
    expect(tracker.countedFor({ principal: 'alice' })).toBe(0);
    expect(tracker.countedFor({ address: '127.0.0.1' })).toBe(0);
    for (const user of callers) expectServed(await call(url, 'ping', user), 'pong');
  });

  it('calls on 2025-11-25 sessions count too, against the same shares', async () => {
    const url = await serve({ maxCallsInFlightPerPrincipal: 2 });
    const alice = { 'x-user': 'alice' };
    const { sessionId } = await rawInitialize(url, { headers: alice });
    expect(sessionId).not.toBe('');
    const legacyCall = (id: string, name: string) =>
      legacyPost(url, { id, method: 'tools/call', params: { name, arguments: {} } }, { sessionId, headers: alice });

    const first = legacyCall('l-1', 'hold');
    await until(() => latch.waiting === 1, 3_000, 'the first legacy call');
    const second = await hold(url, 1, 'alice');

    // Alice's share is full, whichever wire she uses.
    const refused = await legacyCall('l-2', 'ping');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.messages[0].id).toBe('l-2');
    expect(refused.messages[0].error?.code).toBe(OVERLOADED);
    expect(refused.messages[0].error?.message).toContain('maxCallsInFlightPerPrincipal');
    expect(refused.messages[0].error?.data).toEqual({ retryAfterSeconds: 1 });
    expectRefused(await call(url, 'ping', 'alice'), 429, 'maxCallsInFlightPerPrincipal');
    // A session method is not a call: ping still answers.
    expect((await legacyPost(url, { id: 'l-ping', method: 'ping' }, { sessionId, headers: alice })).status).toBe(200);

    // A call cancelled by notification gives its slot back.
    expect(
      (
        await legacyPost(
          url,
          { method: 'notifications/cancelled', params: { requestId: 'l-1' } },
          { sessionId, headers: alice },
        )
      ).status,
    ).toBe(202);
    await first;
    await until(() => tracker.counted === 1, 3_000, 'the cancelled legacy call to be released');
    const third = legacyCall('l-3', 'hold');
    await until(() => latch.waiting === 2, 3_000, 'the third legacy call');
    expect((await legacyCall('l-4', 'ping')).status).toBe(429);

    latch.open();
    expectServed((await Promise.all(second))[0], 'released');
    const answered = await third;
    expect(answered.status).toBe(200);
    expect(answered.messages[0].result?.content).toEqual([{ type: 'text', text: 'released' }]);
    expect(tracker.counted).toBe(0);
    const served = await legacyCall('l-5', 'ping');
    expect(served.status).toBe(200);
    expect(served.messages[0].result?.content).toEqual([{ type: 'text', text: 'pong' }]);
  });
});
