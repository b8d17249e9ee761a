import type { Client } from '@modelcontextprotocol/client';
import { Agent, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StreamingModule, StreamProbe } from '../fixtures/streaming.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpHeaders, mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import {
  assertAllValid,
  assertValidServerMessage,
  recordingFetch,
  sseDataFrames,
  type RecordingFetch,
} from '../support/wire-schema.validator.js';
import { sleep, until } from '../support/wait.util.js';

/**
 * Cancellation (spec 2026-07-28: basic/patterns/cancellation and basic/transports/streamable-http, "Cancellation";
 * docs/logging-and-cancellation.md) and per-request logging (spec 2026-07-28: server/utilities/logging,
 * "Per-request log level") over real HTTP. A client that goes away aborts `ctx.signal` at once and nothing more is
 * written for its request; `ctx.log` reaches only requests that asked for a log level, and only at or above it.
 */

const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const ALL_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

interface JsonRpcMessage {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

function messagesOf(response: RawResponse, requestMethod: string): JsonRpcMessage[] {
  const isSse = response.headers.get('content-type')?.startsWith('text/event-stream');
  const messages = (
    isSse ? sseDataFrames(response.text).map((data) => JSON.parse(data)) : [response.json]
  ) as JsonRpcMessage[];
  for (const message of messages) assertValidServerMessage(message, requestMethod);
  return messages;
}

describe.each(ADAPTERS)('cancellation and logging (%s)', (adapter) => {
  let running: RunningApp;
  let probe: StreamProbe;
  let recorder: RecordingFetch;
  let client: Client;
  /** The raw Node response of each request that carried an `x-test-id` header, to see what the server wrote. */
  const responses = new Map<string, ServerResponse>();

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [StreamingModule] });
    probe = running.app.get(StreamProbe);
    (running.app.getHttpServer() as Server).on('request', (request: IncomingMessage, response: ServerResponse) => {
      const id = request.headers['x-test-id'];
      if (typeof id === 'string') responses.set(id, response);
    });
    recorder = recordingFetch();
    client = await connectClient(running.mcpUrl, { fetch: recorder.fetch });
  });
  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  describe('a client that disconnects cancels its request', () => {
    beforeEach(() => {
      probe.hold = undefined;
    });

    /** Starts `hold` with a raw fetch the test can abort. */
    function startHold(testId: string, upgrade: boolean) {
      const controller = new AbortController();
      const params = {
        name: 'hold',
        arguments: { upgrade },
        _meta: requestMeta({ ...(upgrade && { progressToken: testId }), [LOG_LEVEL]: 'debug' }),
      };
      const responsePromise = fetch(running.mcpUrl, {
        method: 'POST',
        headers: { ...mcpHeaders('tools/call', params), 'x-test-id': testId },
        body: JSON.stringify({ jsonrpc: '2.0', id: testId, method: 'tools/call', params }),
        signal: controller.signal,
      });
      // The rejection is expected once the test aborts; keep it from surfacing as unhandled.
      responsePromise.catch(() => undefined);
      return { controller, responsePromise };
    }

    async function assertCancelled(testId: string, abortAt: number, headersWereSent: boolean): Promise<void> {
      await until(() => probe.hold?.abortedAt !== undefined, 2_000, 'ctx.signal to abort', 1);
      const hold = probe.hold!;
      // Caused by the disconnect itself (not a timer): the abort comes after it, with the disconnect as its reason.
      expect(hold.abortedAt!).toBeGreaterThanOrEqual(abortAt);
      expect(hold.reason).toBeInstanceOf(Error);
      expect((hold.reason as Error).message).toBe('The client disconnected');
      // The emitters know the request is gone: nothing was sent (the request asked for progress and debug logs).
      expect(hold.progressAfterAbort).toBe(false);
      expect(hold.logAfterAbort).toBe(false);
      // Give the handler time to return; its result must not be written.
      await sleep(50);
      const response = responses.get(testId)!;
      expect(response).toBeDefined();
      expect(response.headersSent).toBe(headersWereSent);
      expect(response.writableEnded).toBe(false);
    }

    it('while a JSON response is pending: ctx.signal aborts on the disconnect, nothing is written after', async () => {
      const { controller, responsePromise } = startHold('hold-json', false);
      await until(() => probe.hold !== undefined, 2_000, 'the handler to start', 1);
      const abortAt = Date.now();
      controller.abort();
      await expect(responsePromise).rejects.toThrow();
      await assertCancelled('hold-json', abortAt, false);
    });

    it('after the response upgraded to SSE: ctx.signal aborts on the disconnect, nothing is written after', async () => {
      const { controller, responsePromise } = startHold('hold-sse', true);
      const response = await responsePromise;
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = response.body!.getReader();
      const first = await reader.read();
      const frame = new TextDecoder().decode(first.value);
      expect(sseDataFrames(frame).map((data) => JSON.parse(data).params)).toEqual([
        { progressToken: 'hold-sse', progress: 1, message: 'holding' },
      ]);
      await until(() => probe.hold !== undefined, 2_000, 'the handler to start waiting', 1);
      const abortAt = Date.now();
      controller.abort();
      await expect(reader.read()).rejects.toThrow();
      await assertCancelled('hold-sse', abortAt, true);
    });

    it('the server keeps serving afterwards, on both kinds of response', async () => {
      const plain = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'longJob', arguments: { steps: 2 } },
      });
      expect(messagesOf(plain, 'tools/call')[0].result?.content).toEqual([{ type: 'text', text: 'done 2' }]);
      const streamed = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'longJob', arguments: { steps: 2 } },
        meta: requestMeta({ progressToken: 'after' }),
      });
      expect(messagesOf(streamed, 'tools/call').map((m) => m.method ?? 'response')).toEqual([
        'notifications/progress',
        'notifications/progress',
        'response',
      ]);
    });

    it('a request that finishes normally is not reported as cancelled', async () => {
      const controller = new AbortController();
      const params = { name: 'longJob', arguments: { steps: 1 }, _meta: requestMeta() };
      const response = await fetch(running.mcpUrl, {
        method: 'POST',
        headers: { ...mcpHeaders('tools/call', params), 'x-test-id': 'finished' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
        signal: controller.signal,
      });
      expect(await response.json()).toMatchObject({ result: { content: [{ type: 'text', text: 'done 1' }] } });
      controller.abort();
      expect(responses.get('finished')!.writableFinished).toBe(true);
    });
  });

  describe('server shutdown (ADR 0012)', () => {
    /**
     * Starts `hold` on a fresh app through a keep-alive agent (as real clients connect), then begins `app.close()`.
     * The agent is destroyed afterwards, so a server that waits for the client's idle connection still closes.
     */
    async function holdThenClose(
      run: (state: {
        probe: StreamProbe;
        closeAt: number;
        closed: () => boolean;
        answer: Promise<string>;
      }) => Promise<void>,
    ) {
      const other = await startApp(adapter, { imports: [StreamingModule] });
      const otherProbe = other.app.get(StreamProbe);
      const agent = new Agent({ keepAlive: true });
      const params = { name: 'hold', arguments: {}, _meta: requestMeta() };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 'shutdown', method: 'tools/call', params });
      const answer = new Promise<string>((resolve, reject) => {
        const outgoing = httpRequest(
          other.mcpUrl,
          {
            method: 'POST',
            agent,
            headers: { ...mcpHeaders('tools/call', params), 'content-length': String(Buffer.byteLength(body)) },
          },
          (incoming) => {
            const chunks: Buffer[] = [];
            incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
            incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
            incoming.on('error', reject);
          },
        );
        outgoing.on('error', reject);
        outgoing.end(body);
      });
      answer.catch(() => undefined);
      await until(() => otherProbe.hold !== undefined, 2_000, 'the handler to start', 1);
      let closed = false;
      const closeAt = Date.now();
      const closing = other.close().then(() => {
        closed = true;
      });
      try {
        await run({ probe: otherProbe, closeAt, closed: () => closed, answer });
      } finally {
        agent.destroy();
        await closing;
      }
    }

    it('aborts ctx.signal of a call in flight on shutdown; the handler can still answer', async () => {
      await holdThenClose(async ({ probe: otherProbe, closeAt, answer }) => {
        await until(() => otherProbe.hold?.abortedAt !== undefined, 1_000, 'ctx.signal to abort on shutdown', 1);
        expect(otherProbe.hold!.abortedAt!).toBeGreaterThanOrEqual(closeAt);
        expect((otherProbe.hold!.reason as Error).message).toBe('The server is shutting down');
        const message = JSON.parse(await answer);
        assertValidServerMessage(message, 'tools/call');
        expect(message.result.content).toEqual([{ type: 'text', text: 'held' }]);
      });
    });

    it('app.close() completes promptly once that call has answered, even for a keep-alive client', async () => {
      await holdThenClose(async ({ closed, answer }) => {
        await answer;
        await until(closed, 1_000, 'app.close() to complete while the client keeps its connection open', 1);
      });
    });
  });

  describe('logging (notifications/message)', () => {
    beforeEach(() => {
      probe.logged = undefined;
    });

    function logsOf(messages: JsonRpcMessage[]) {
      return messages.filter((m) => m.method === 'notifications/message').map((m) => m.params);
    }

    it('without a log level: nothing is sent, the response stays application/json', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'chatty', arguments: {} },
      });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.text).not.toContain('notifications/message');
      expect(messagesOf(response, 'tools/call')[0].result?.content).toEqual([{ type: 'text', text: 'chatted' }]);
      expect(probe.logged).toEqual(Object.fromEntries(ALL_LEVELS.map((level) => [level, false])));
    });

    it.each([
      ['debug', ALL_LEVELS],
      ['info', ALL_LEVELS.slice(1)],
      ['notice', ALL_LEVELS.slice(2)],
      ['warning', ['warning', 'error', 'critical', 'alert', 'emergency']],
      ['error', ['error', 'critical', 'alert', 'emergency']],
      ['emergency', ['emergency']],
    ])(
      'at level %s: only messages at or above it, in order, with the logger name, before the response',
      async (level, expected) => {
        const response = await mcpPost(running.mcpUrl, {
          method: 'tools/call',
          params: { name: 'chatty', arguments: {} },
          meta: requestMeta({ [LOG_LEVEL]: level }),
        });
        expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
        expect(response.headers.get('x-accel-buffering')).toBe('no');
        const messages = messagesOf(response, 'tools/call');
        expect(logsOf(messages)).toEqual(
          expected.map((l) => ({ level: l, logger: 'chatty', data: { level: l, note: `a ${l} message` } })),
        );
        expect(messages.at(-1)!.id).toBe(response.sentId);
        expect(messages.at(-1)!.result?.content).toEqual([{ type: 'text', text: 'chatted' }]);
        expect(messages.filter((m) => m.id !== undefined)).toHaveLength(1);
        expect(probe.logged).toEqual(Object.fromEntries(ALL_LEVELS.map((l) => [l, expected.includes(l)])));
      },
    );

    it('a message without a logger name has no logger field', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'anonymousLog', arguments: {} },
        meta: requestMeta({ [LOG_LEVEL]: 'info' }),
      });
      expect(logsOf(messagesOf(response, 'tools/call'))).toEqual([{ level: 'error', data: 'plain text data' }]);
    });

    it('a prompt logs the same way', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'prompts/get',
        params: { name: 'loggingPrompt' },
        meta: requestMeta({ [LOG_LEVEL]: 'warning' }),
      });
      expect(logsOf(messagesOf(response, 'prompts/get'))).toEqual([
        { level: 'error', logger: 'prompts', data: 'prompt error' },
      ]);
      const quiet = await mcpPost(running.mcpUrl, { method: 'prompts/get', params: { name: 'loggingPrompt' } });
      expect(quiet.headers.get('content-type')).toMatch(/^application\/json/);
    });

    it('progress and logs opted into separately: a progress token alone brings no logs', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'chatty', arguments: {} },
        meta: requestMeta({ progressToken: 'p' }),
      });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.text).not.toContain('notifications/message');
    });

    it.each(['verbose', 'WARNING', 42])('an unknown log level (%s) is refused with -32602, HTTP 400', async (level) => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'chatty', arguments: {} },
        meta: requestMeta({ [LOG_LEVEL]: level }),
      });
      expect(response.status).toBe(400);
      expect(messagesOf(response, 'tools/call')[0].error?.code).toBe(-32602);
      expect(probe.logged).toBeUndefined();
    });

    it('the official client receives the messages at or above its level (user _meta key)', async () => {
      const received: unknown[] = [];
      client.setNotificationHandler('notifications/message', (notification) => {
        received.push(notification.params);
      });
      const result = await client.callTool({ name: 'chatty', arguments: {}, _meta: { [LOG_LEVEL]: 'critical' } });
      expect(result.content).toEqual([{ type: 'text', text: 'chatted' }]);
      expect(received).toEqual(
        ['critical', 'alert', 'emergency'].map((l) => ({
          level: l,
          logger: 'chatty',
          data: { level: l, note: `a ${l} message` },
        })),
      );
      received.length = 0;
      await client.callTool({ name: 'chatty', arguments: {} });
      expect(received).toEqual([]);
    });

    it('the server advertises logging, and everything sent to the client was valid', async () => {
      const discover = await mcpPost(running.mcpUrl, { method: 'server/discover', params: {} });
      expect(
        (messagesOf(discover, 'server/discover')[0].result?.capabilities as Record<string, unknown> | undefined)
          ?.logging,
      ).toEqual({});
      expect(await assertAllValid(recorder)).toBeGreaterThan(0);
    });
  });
});
