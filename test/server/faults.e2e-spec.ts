import type { LoggerService } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpCallTracker } from '../../libs/mcp/src/server/call.tracker.js';
import { CatalogModule } from '../fixtures/catalog.fixture.js';
import { elicitationModule } from '../fixtures/elicitation.fixture.js';
import { FaultProbe, faultsModule, SECRET, type HandlerRun } from '../fixtures/faults.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { mcpHeaders, mcpPost, requestMeta } from '../support/raw-request.util.js';
import { exposeGc, retainedBytes } from '../support/memory.util.js';
import { openStream } from '../support/sse-stream.reader.js';
import { sleep, until } from '../support/wait.util.js';
import { expectResult, messagesOf, textOf, type WireMessage } from '../support/wire-response.util.js';
import { assertValidServerMessage, sseDataFrames } from '../support/wire-schema.validator.js';

/**
 * Faults (issue 8): clients that vanish mid-stream or never read, handlers that never return, ignore cancellation
 * or throw after streaming began, and shutdown with calls in flight. Each checks what reached the wire, that nothing
 * was written after a connection closed, and that the server's own bookkeeping (calls in flight, open connections)
 * returns to zero.
 */

/** What was done to one server-side response, recorded by wrapping its `write` / `end`. */
interface ResponseRecord {
  response: ServerResponse;
  closed: boolean;
  /** `write`/`end` calls made after the connection closed. */
  writesAfterClose: number;
  /** The most bytes Node held in the response's buffer at any write. */
  maxWritableLength: number;
}

/** Wraps every response of requests that carry `x-test-id`, keyed by it. */
function recordResponses(server: Server): Map<string, ResponseRecord> {
  const records = new Map<string, ResponseRecord>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const id = request.headers['x-test-id'];
    if (typeof id !== 'string') return;
    const record: ResponseRecord = { response, closed: false, writesAfterClose: 0, maxWritableLength: 0 };
    response.once('close', () => {
      record.closed = true;
    });
    const wrap = <K extends 'write' | 'end'>(name: K) => {
      const original = response[name].bind(response) as (...args: unknown[]) => unknown;
      (response as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        if (record.closed) record.writesAfterClose++;
        const result = original(...args);
        record.maxWritableLength = Math.max(record.maxWritableLength, response.writableLength);
        return result;
      };
    };
    wrap('write');
    wrap('end');
    records.set(id, record);
  });
  return records;
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/**
 * Closes an app without letting a known gap hang the suite: if `app.close()` has not finished after `graceMs` (a
 * connection the server did not end), the remaining connections are cut so the hook completes. The gap itself is
 * asserted by its own test.
 */
async function closeApp(
  running: RunningApp | undefined,
  graceMs = 3_000,
): Promise<{ inTime: boolean; elapsed: number }> {
  if (!running) return { inTime: true, elapsed: 0 };
  const started = Date.now();
  const closing = running.close();
  const inTime = await Promise.race([closing.then(() => true), sleep(graceMs).then(() => false)]);
  const elapsed = Date.now() - started;
  if (!inTime) (running.app.getHttpServer() as Server).closeAllConnections();
  await closing;
  return { inTime, elapsed };
}

/** A `tools/call` body with the 2026 envelope. */
function callBody(id: string | number, name: string, args: Record<string, unknown> = {}, meta = requestMeta()): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: meta } });
}

/** A raw POST through `node:http` on its own connection (no keep-alive pool), read to the end. */
function postRaw(
  url: URL,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode!,
            headers: incoming.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The JSON-RPC messages of a raw answer (SSE frames or one JSON body), each validated against the schema. */
function decode(
  answer: { headers: Record<string, string | string[] | undefined>; text: string },
  method = 'tools/call',
): WireMessage[] {
  const sse = String(answer.headers['content-type'] ?? '').startsWith('text/event-stream');
  const messages = (
    sse ? sseDataFrames(answer.text).map((data) => JSON.parse(data)) : [JSON.parse(answer.text)]
  ) as WireMessage[];
  for (const message of messages) assertValidServerMessage(message, method);
  expect(answer.text).not.toContain('hunter2');
  return messages;
}

describe.each(ADAPTERS)('faults (%s)', (adapter) => {
  describe('clients that disconnect or never read', () => {
    let running: RunningApp;
    let probe: FaultProbe;
    let tracker: McpCallTracker;
    let server: Server;
    let records: Map<string, ResponseRecord>;

    beforeAll(async () => {
      running = await startApp(adapter, {
        imports: [
          faultsModule({ callTimeoutMs: 20_000, streaming: { maxQueuedFrames: 32, maxQueuedBytes: 32 * 1024 } }),
        ],
      });
      probe = running.app.get(FaultProbe);
      tracker = running.app.get(McpCallTracker);
      server = running.app.getHttpServer() as Server;
      records = recordResponses(server);
    });
    afterAll(async () => {
      await closeApp(running);
    });

    /**
     * Starts `ticker` on a connection of its own (`node:http`, no pool, so no idle connection outlives the test);
     * `stream` asks for progress (SSE). `received` collects what arrived; `controller.abort()` drops the connection.
     */
    async function startTicker(testId: string, stream: boolean) {
      const controller = new AbortController();
      const meta = stream
        ? requestMeta({ progressToken: testId, 'io.modelcontextprotocol/logLevel': 'debug' })
        : requestMeta();
      const body = callBody(testId, 'ticker', {}, meta);
      const received: { contentType?: string; text: string } = { text: '' };
      const outgoing = httpRequest(
        running.mcpUrl,
        {
          method: 'POST',
          agent: false,
          signal: controller.signal,
          headers: {
            ...mcpHeaders('tools/call', { name: 'ticker' }),
            'x-test-id': testId,
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (incoming) => {
          received.contentType = incoming.headers['content-type'];
          incoming.on('data', (chunk: Buffer) => {
            received.text += chunk.toString('utf8');
          });
          incoming.on('error', () => undefined);
        },
      );
      outgoing.on('error', () => undefined);
      outgoing.end(body);
      const before = probe.runs.length;
      await until(
        () => probe.runs.length > before && probe.last('ticker')!.emitted > 0 && records.has(testId),
        3_000,
        'the ticker to start',
      );
      return { controller, received, run: probe.last('ticker')! };
    }

    async function expectCleanAbort(run: HandlerRun, testId: string, abortAt: number): Promise<void> {
      await until(() => run.finishedAt !== undefined, 2_000, 'the handler to stop');
      expect(run.abortedAt! - abortAt).toBeLessThan(200);
      expect((run.reason as Error).message).toBe('The client disconnected');
      expect(run.sentAfterAbort).toBe(0);
      await sleep(30);
      const record = records.get(testId)!;
      expect(record.closed).toBe(true);
      expect(record.writesAfterClose).toBe(0);
      expect(record.response.writableEnded).toBe(false);
    }

    it('mid-stream (SSE, frames flowing): the handler aborts within 200 ms, nothing is written after the close', async () => {
      const { controller, received, run } = await startTicker('drop-sse', true);
      await until(() => sseDataFrames(received.text).length >= 3, 2_000, 'a few frames to arrive');
      expect(received.contentType).toMatch(/^text\/event-stream/);
      const abortAt = Date.now();
      controller.abort();
      await expectCleanAbort(run, 'drop-sse', abortAt);
    });

    it('while a JSON answer is pending: the same', async () => {
      const { controller, run } = await startTicker('drop-json', false);
      const abortAt = Date.now();
      controller.abort();
      await expectCleanAbort(run, 'drop-json', abortAt);
    });

    it('25 disconnects in a row: every handler aborted, calls in flight and open connections return to zero', async () => {
      const BURST = 25;
      const before = probe.runs.length;
      for (let index = 0; index < BURST; index++) {
        const { controller } = await startTicker(`burst-${index}`, index % 2 === 0);
        controller.abort();
      }
      await until(
        () => probe.runs.slice(before).every((run) => run.finishedAt !== undefined),
        3_000,
        'every handler to stop',
      );
      const runs = probe.runs.slice(before);
      expect(runs).toHaveLength(BURST);
      for (const run of runs) {
        expect((run.reason as Error)?.message).toBe('The client disconnected');
        expect(run.sentAfterAbort).toBe(0);
      }
      for (let index = 0; index < BURST; index++) {
        const record = records.get(`burst-${index}`)!;
        expect(record.writesAfterClose).toBe(0);
        expect(record.response.socket?.destroyed ?? true).toBe(true);
      }
      await until(() => tracker.size === 0, 2_000, 'no call in flight');
      await expect.poll(() => openConnections(server), { timeout: 2_000 }).toBe(0);
      // And the server still answers.
      expect(
        textOf(
          expectResult(
            await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'ping', arguments: {} } }),
            'tools/call',
          ),
        ),
      ).toBe('pong');
    });

    it('a client that never reads: memory stays bounded while the handler emits ~25 MB, then the close cleans up', async () => {
      const gc = exposeGc();
      const baseline = retainedBytes(gc);
      const COUNT = 25_000;
      const BYTES = 1_000;
      const body = callBody(
        'never-reads',
        'firehose',
        { count: COUNT, bytes: BYTES },
        requestMeta({ progressToken: 'never-reads' }),
      );
      const socket = connect(Number(running.mcpUrl.port), running.mcpUrl.hostname);
      socket.on('error', () => undefined);
      const headers = {
        ...mcpHeaders('tools/call', { name: 'firehose' }),
        'x-test-id': 'never-reads',
        'content-length': String(Buffer.byteLength(body)),
      };
      socket.write(
        `POST ${running.mcpUrl.pathname} HTTP/1.1\r\nHost: 127.0.0.1:${running.mcpUrl.port}\r\n` +
          `${Object.entries(headers)
            .map(([name, value]) => `${name}: ${value}`)
            .join('\r\n')}\r\n\r\n${body}`,
      );
      // Never read: the kernel buffers fill, then the server's writes back up.
      socket.pause();
      try {
        await until(
          () => probe.last('firehose')?.finishedAt !== undefined,
          10_000,
          'the firehose to finish (it must not block on the client)',
        );
        const run = probe.last('firehose')!;
        expect(run.emitted).toBe(COUNT);
        await sleep(50);
        const grown = retainedBytes(gc) - baseline;
        const record = records.get('never-reads')!;
        // Node's own buffer never holds much more than one high-water mark plus a frame; the rest was coalesced.
        expect(record.maxWritableLength).toBeLessThan(64 * 1024);
        expect(grown).toBeLessThan((gc ? 10 : 20) * 1024 * 1024);
        // The handler returned, so the call is no longer in flight, even though its last frames still wait.
        expect(tracker.size).toBe(0);
      } finally {
        socket.destroy();
      }
      const record = records.get('never-reads')!;
      await until(() => record.closed, 2_000, 'the server to see the close');
      expect(record.writesAfterClose).toBe(0);
      expect(record.response.socket?.destroyed ?? true).toBe(true);
      await until(() => tracker.size === 0, 2_000, 'no call in flight');
    });
  });

  describe('handlers that never return (callTimeoutMs)', () => {
    const TIMEOUT = 300;
    let running: RunningApp;
    let probe: FaultProbe;
    let tracker: McpCallTracker;

    beforeAll(async () => {
      running = await startApp(adapter, {
        imports: [faultsModule({ callTimeoutMs: TIMEOUT, shutdownTimeoutMs: 500, keepAliveMs: 100 })],
      });
      probe = running.app.get(FaultProbe);
      tracker = running.app.get(McpCallTracker);
    });
    afterAll(async () => {
      await closeApp(running);
    });

    it('a JSON call: -32603 "timed out" at the deadline, the handler\'s signal aborted with the same reason', async () => {
      const started = Date.now();
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'forever', arguments: {} },
      });
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT - 20);
      expect(elapsed).toBeLessThan(TIMEOUT + 1_000);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const [message] = messagesOf(response, 'tools/call');
      expect(message.id).toBe(response.sentId);
      expect(message.error?.code).toBe(-32603);
      expect(message.error?.message).toMatch(/timed out/i);
      const run = probe.last('forever')!;
      expect(run.abortedAt).toBeDefined();
      expect((run.reason as Error).message).toMatch(/timed out/i);
    });

    it('a streaming call: the progress, then a -32603 error frame, and the stream ends', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'foreverStreaming', arguments: {} },
        meta: requestMeta({ progressToken: 'hang' }),
      });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const messages = messagesOf(response, 'tools/call');
      expect(messages.map((m) => m.method ?? m.error?.code)).toEqual(['notifications/progress', -32603]);
      expect(messages[1].id).toBe(response.sentId);
    });

    it('a prompt that never returns times out the same way', async () => {
      const response = await mcpPost(running.mcpUrl, { method: 'prompts/get', params: { name: 'foreverPrompt' } });
      const [message] = messagesOf(response, 'prompts/get');
      expect(message.error?.code).toBe(-32603);
      expect(message.error?.message).toMatch(/timed out/i);
    });

    it('once answered, a timed-out call no longer counts as in flight (nothing is left to answer)', async () => {
      await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'forever', arguments: {} } });
      await until(() => tracker.size === 0, 500, 'the timed-out calls to leave the in-flight set');
    });

    it('listen streams are exempt: one stays open well past callTimeoutMs', async () => {
      const stream = await openStream(running.mcpUrl, {
        method: 'subscriptions/listen',
        id: 'exempt',
        params: { notifications: { toolsListChanged: true } },
      });
      await stream.nextFrames(1);
      await sleep(TIMEOUT * 2.5);
      expect(stream.endedByServer).toBe(false);
      expect(stream.messages.filter((m) => m.error)).toEqual([]);
      stream.close();
      await stream.ended;
      expect(stream.problems).toEqual([]);
    });

    it('the server keeps serving', async () => {
      expect(
        textOf(
          expectResult(
            await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'ping', arguments: {} } }),
            'tools/call',
          ),
        ),
      ).toBe('pong');
    });
  });

  describe('handlers that throw after streaming began', () => {
    let running: RunningApp;
    let tracker: McpCallTracker;

    beforeAll(async () => {
      running = await startApp(adapter, { imports: [faultsModule()] });
      tracker = running.app.get(McpCallTracker);
    });
    afterAll(async () => {
      await closeApp(running);
    });

    const streamed = (method: string, params: Record<string, unknown>) =>
      mcpPost(running.mcpUrl, { method, params, meta: requestMeta({ progressToken: 'boom' }) });

    it('a tool: progress, then a generic isError result as the last frame; the stream ends; nothing leaks', async () => {
      const response = await streamed('tools/call', { name: 'throwAfterStream', arguments: {} });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const messages = messagesOf(response, 'tools/call');
      expect(messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'response']);
      expect(messages[1].result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Tool "throwAfterStream" failed with an internal error' }],
      });
      expect(response.text).not.toContain('hunter2');
    });

    it('a tool throwing McpError: a JSON-RPC error frame with its code and data, in the 200 stream', async () => {
      const response = await streamed('tools/call', { name: 'protocolErrorAfterStream', arguments: {} });
      expect(response.status).toBe(200);
      const messages = messagesOf(response, 'tools/call');
      expect(messages.at(-1)!.error).toEqual({ code: -32602, message: 'Unknown region', data: { region: 'mars' } });
      expect(messages.at(-1)!.id).toBe(response.sentId);
    });

    it.each([
      ['prompts/get', { name: 'brokenPrompt' }],
      ['resources/read', { uri: 'faults://broken' }],
    ])('%s: progress, then a -32603 "Internal error" frame; the stream ends; nothing leaks', async (method, params) => {
      const response = await streamed(method, params);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const messages = messagesOf(response, method);
      expect(messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'response']);
      expect(messages[1].error).toEqual({ code: -32603, message: 'Internal error' });
      expect(response.text).not.toContain('hunter2');
      expect(response.text).not.toContain(SECRET.slice(0, 10));
    });

    it('nothing stays in flight, and the server keeps serving', async () => {
      await until(() => tracker.size === 0, 1_000, 'no call in flight');
      expect(
        textOf(
          expectResult(
            await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'ping', arguments: {} } }),
            'tools/call',
          ),
        ),
      ).toBe('pong');
    });
  });

  describe('shutdown with calls in flight (shutdownTimeoutMs)', () => {
    const DRAIN = 600;
    let mixedTracker: McpCallTracker | undefined;

    /** A fresh app with a short drain deadline; the test closes it. */
    async function freshApp() {
      const running = await startApp(adapter, {
        imports: [faultsModule({ shutdownTimeoutMs: DRAIN, callTimeoutMs: 30_000 })],
      });
      return { running, probe: running.app.get(FaultProbe), tracker: running.app.get(McpCallTracker) };
    }

    /** Times `app.close()` (cut short, and failing the deadline checks, if it hangs). */
    async function timedClose(running: RunningApp): Promise<number> {
      return (await closeApp(running, 5_000)).elapsed;
    }

    it('a handler that ignores its signal: close() returns within the deadline and the client gets -32603', async () => {
      const { running, probe } = await freshApp();
      const body = callBody('stubborn-json', 'stubborn', { ms: 20_000 });
      const answer = postRaw(running.mcpUrl, body, mcpHeaders('tools/call', { name: 'stubborn' }));
      await until(() => probe.last('stubborn') !== undefined, 2_000, 'the handler to start');
      const closeTook = await timedClose(running);
      expect(closeTook).toBeGreaterThanOrEqual(DRAIN - 50);
      expect(closeTook).toBeLessThan(DRAIN + 1_500);
      const reply = await answer;
      expect(reply.status).toBe(200);
      const [message] = decode(reply);
      expect(message.id).toBe('stubborn-json');
      expect(message.error?.code).toBe(-32603);
      expect((probe.last('stubborn')!.reason as Error).message).toBe('The server is shutting down');
    });

    it('a streaming handler that ignores its signal: its stream gets a -32603 frame and ends, within the deadline', async () => {
      const { running, probe } = await freshApp();
      const body = callBody(
        'stubborn-sse',
        'stubborn',
        { ms: 20_000, stream: true },
        requestMeta({ progressToken: 's' }),
      );
      const answer = postRaw(running.mcpUrl, body, mcpHeaders('tools/call', { name: 'stubborn' }));
      await until(() => probe.last('stubborn') !== undefined, 2_000, 'the handler to start');
      await sleep(20);
      const closeTook = await timedClose(running);
      expect(closeTook).toBeLessThan(DRAIN + 1_500);
      const reply = await answer;
      expect(String(reply.headers['content-type'])).toMatch(/^text\/event-stream/);
      const messages = decode(reply);
      expect(messages.map((m) => m.method ?? m.error?.code)).toEqual(['notifications/progress', -32603]);
    });

    it('20 calls in flight (cooperative and stubborn, JSON and SSE): every one answered, close() within the deadline', async () => {
      const { running, probe, tracker } = await freshApp();
      const answers: Array<Promise<{ id: string; reply: Awaited<ReturnType<typeof postRaw>> }>> = [];
      for (let index = 0; index < 20; index++) {
        const id = `mix-${index}`;
        const cooperative = index % 2 === 0;
        const stream = index % 4 < 2;
        const meta = stream ? requestMeta({ progressToken: id }) : requestMeta();
        const body = cooperative
          ? callBody(id, 'ticker', {}, meta)
          : callBody(id, 'stubborn', { ms: 20_000, stream }, meta);
        const name = cooperative ? 'ticker' : 'stubborn';
        answers.push(
          postRaw(running.mcpUrl, body, mcpHeaders('tools/call', { name })).then((reply) => ({ id, reply })),
        );
      }
      await until(() => probe.runs.length === 20, 3_000, 'all 20 handlers to start');
      expect(tracker.size).toBe(20);
      const closeTook = await timedClose(running);
      expect(closeTook).toBeLessThan(DRAIN + 1_500);
      const settled = await Promise.all(answers);
      for (const { id, reply } of settled) {
        const messages = decode(reply);
        const final = messages.at(-1)!;
        expect(final.id).toBe(id);
        const index = Number(id.split('-')[1]);
        if (index % 2 === 0) expect(final.result).toMatchObject({ content: [{ type: 'text', text: 'stopped' }] });
        else expect(final.error?.code).toBe(-32603);
      }
      mixedTracker = tracker;
    });

    it('after that drain, the calls it answered are no longer counted in flight (their handlers still sleep)', () => {
      expect(mixedTracker?.size).toBe(0);
    });

    it('a client that never reads does not hold up app.close() beyond the deadline', async () => {
      const { running, probe } = await freshApp();
      const body = callBody(
        'stuck',
        'firehose',
        { count: 20_000, bytes: 1_000 },
        requestMeta({ progressToken: 'stuck' }),
      );
      const socket = connect(Number(running.mcpUrl.port), running.mcpUrl.hostname);
      socket.on('error', () => undefined);
      const headers = {
        ...mcpHeaders('tools/call', { name: 'firehose' }),
        'content-length': String(Buffer.byteLength(body)),
      };
      socket.write(
        `POST ${running.mcpUrl.pathname} HTTP/1.1\r\nHost: 127.0.0.1:${running.mcpUrl.port}\r\n` +
          `${Object.entries(headers)
            .map(([name, value]) => `${name}: ${value}`)
            .join('\r\n')}\r\n\r\n${body}`,
      );
      socket.pause();
      try {
        await until(() => probe.last('firehose')?.finishedAt !== undefined, 10_000, 'the firehose to finish');
        const { inTime, elapsed } = await closeApp(running, DRAIN + 1_000);
        expect(inTime, `app.close() still pending after ${elapsed} ms`).toBe(true);
      } finally {
        socket.destroy();
      }
    });

    it('a connection that never sends a request does not hold up app.close() beyond the deadline', async () => {
      const { running } = await freshApp();
      const idle = connect(Number(running.mcpUrl.port), running.mcpUrl.hostname);
      idle.on('error', () => undefined);
      await new Promise((resolve) => idle.once('connect', resolve));
      try {
        const { inTime, elapsed } = await closeApp(running, DRAIN + 1_000);
        expect(inTime, `app.close() still pending after ${elapsed} ms`).toBe(true);
      } finally {
        idle.destroy();
      }
    });

    it('a request that arrives while the server drains is still answered, on a connection that then closes', async () => {
      const { running, probe } = await freshApp();
      const stubborn = postRaw(
        running.mcpUrl,
        callBody('hold', 'stubborn', { ms: 20_000 }),
        mcpHeaders('tools/call', { name: 'stubborn' }),
      );
      await until(() => probe.last('stubborn') !== undefined, 2_000, 'the handler to start');
      const closing = timedClose(running);
      await sleep(50);
      const late = await postRaw(
        running.mcpUrl,
        callBody('late', 'ping'),
        mcpHeaders('tools/call', { name: 'ping' }),
      ).catch((error: Error) => error);
      if (!(late instanceof Error)) {
        const [message] = decode(late);
        expect(message.id).toBe('late');
        expect(late.headers.connection).toBe('close');
      } else {
        // A server that already stopped accepting refuses the connection outright: also an answer, and no hang.
        expect((late as NodeJS.ErrnoException).code).toMatch(/ECONNREFUSED|ECONNRESET/);
      }
      expect(await closing).toBeLessThan(DRAIN + 1_500);
      decode(await stubborn);
    });
  });

  describe('the server log', () => {
    const lines: string[] = [];
    let catalog: RunningApp;
    let elicit: RunningApp;

    beforeAll(async () => {
      const logger: LoggerService = {
        log: () => undefined,
        error: (...args: unknown[]) => lines.push(`ERROR ${args.map(String).join(' ')}`),
        warn: (...args: unknown[]) => lines.push(`WARN ${args.map(String).join(' ')}`),
      };
      [catalog, elicit] = await Promise.all([
        startApp(adapter, { imports: [CatalogModule] }),
        startApp(adapter, { imports: [elicitationModule()] }),
      ]);
      catalog.app.useLogger(logger);
      elicit.app.useLogger(logger);
    });
    afterAll(async () => {
      await Promise.all([closeApp(catalog), closeApp(elicit)]);
    });

    /** Error and warning lines logged while `run` ran. */
    async function logged(run: (catalog: URL, elicit: URL) => Promise<unknown>): Promise<string[]> {
      lines.length = 0;
      await run(catalog.mcpUrl, elicit.mcpUrl);
      return [...lines];
    }

    it.each<[string, (catalog: URL, elicit: URL) => Promise<unknown>]>([
      [
        'an input_required round (the handler asked a question)',
        (_catalog, elicitUrl) =>
          mcpPost(elicitUrl, {
            method: 'tools/call',
            params: { name: 'confirmDelete', arguments: { target: 'x' } },
            meta: requestMeta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }),
          }),
      ],
      [
        'a missing client capability (-32021)',
        (_catalog, elicitUrl) =>
          mcpPost(elicitUrl, { method: 'tools/call', params: { name: 'confirmDelete', arguments: { target: 'x' } } }),
      ],
      [
        'an McpToolError (isError for the model)',
        (catalogUrl) => mcpPost(catalogUrl, { method: 'tools/call', params: { name: 'outOfStock', arguments: {} } }),
      ],
      [
        'an McpError from a handler (resource not found)',
        (catalogUrl) => mcpPost(catalogUrl, { method: 'resources/read', params: { uri: 'catalog://items/nope' } }),
      ],
      [
        'invalid tool arguments',
        (catalogUrl) => mcpPost(catalogUrl, { method: 'tools/call', params: { name: 'add', arguments: { a: 'x' } } }),
      ],
    ])('%s is a normal outcome: nothing is logged as an error', async (_label, run) => {
      expect(await logged(run)).toEqual([]);
    });

    it('an unexpected handler failure is logged once, with its detail, server-side only', async () => {
      const found = await logged(async (catalogUrl) => {
        const response = await mcpPost(catalogUrl, { method: 'tools/call', params: { name: 'crash', arguments: {} } });
        expect(response.text).not.toContain('hunter2');
      });
      expect(found.filter((line) => line.includes('hunter2'))).toHaveLength(1);
    });
  });
});
