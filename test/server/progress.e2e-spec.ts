import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { exposeGc, retainedBytes } from '../support/memory.util.js';
import { until } from '../support/wait.util.js';
import type { WireMessage } from '../support/wire-response.util.js';

/**
 * Progress (spec 2026-07-28: basic/patterns/progress; ADR 0002, ADR 0008) over real HTTP: what the official client
 * sees, what the raw wire looks like with and without a progress token, illegal values, and a client that reads far
 * slower than a handler emits.
 */

interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

/** The messages of a raw response: the SSE frames, or the one JSON body. Each is checked against the schema. */
function messagesOf(response: RawResponse, requestMethod: string): WireMessage[] {
  const isSse = response.headers.get('content-type')?.startsWith('text/event-stream');
  const messages = (
    isSse ? sseDataFrames(response.text).map((data) => JSON.parse(data)) : [response.json]
  ) as WireMessage[];
  for (const message of messages) assertValidServerMessage(message, requestMethod);
  return messages;
}

const textOf = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0].text;

describe.each(ADAPTERS)('progress (%s)', (adapter) => {
  let running: RunningApp;
  let recorder: RecordingFetch;
  let client: Client;
  let probe: StreamProbe;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [StreamingModule] });
    probe = running.app.get(StreamProbe);
    recorder = recordingFetch();
    client = await connectClient(running.mcpUrl, { fetch: recorder.fetch });
  });
  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  describe('through the official client', () => {
    it('float progress with messages arrives in order, before the result', async () => {
      const arrivals: string[] = [];
      const seen: unknown[] = [];
      const resultPromise = client
        .callTool(
          { name: 'longJob', arguments: { steps: 5 } },
          {
            onprogress: (progress: unknown) => {
              seen.push(progress);
              arrivals.push('progress');
            },
          },
        )
        .then((result) => {
          arrivals.push('result');
          return result;
        });
      const result = await resultPromise;
      expect(textOf(result)).toBe('done 5');
      expect(arrivals).toEqual(['progress', 'progress', 'progress', 'progress', 'progress', 'result']);
      expect(seen).toEqual(
        [0.5, 1, 1.5, 2, 2.5].map((progress, index) => ({
          progress,
          total: 2.5,
          message: `step ${index + 1} of 5`,
        })),
      );

      // The raw wire agrees: five progress frames on the request's own SSE stream, then the response, last.
      const recorded = (await recorder.settled()).filter((entry) => entry.requestMethod === 'tools/call');
      const last = recorded.slice(-6);
      expect(last.map((entry) => entry.contentType)).toEqual(Array(6).fill('text/event-stream'));
      expect(last.slice(0, 5).map((entry) => (entry.message as WireMessage).method)).toEqual(
        Array(5).fill('notifications/progress'),
      );
      const response = last[5].message as WireMessage;
      expect(response.id).toBe(last[5].requestId);
      expect(response.result?.resultType).toBe('complete');
    });

    it('integer progress (number and bigint) keeps its total', async () => {
      const seen: unknown[] = [];
      const result = await client.callTool(
        { name: 'wholeSteps', arguments: {} },
        { onprogress: (p: unknown) => seen.push(p) },
      );
      expect(textOf(result)).toBe('whole done');
      expect(seen).toEqual([
        { progress: 3, total: 10, message: 'three' },
        { progress: 7, total: 10, message: 'seven' },
      ]);
    });

    it('progress from a prompt (prompts/get)', async () => {
      const seen: unknown[] = [];
      const prompt = await client.getPrompt({ name: 'slowPrompt' }, { onprogress: (p: unknown) => seen.push(p) });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'prompt text' } }]);
      expect(seen).toEqual([
        { progress: 1, total: 2, message: 'loading' },
        { progress: 2, total: 2, message: 'rendering' },
      ]);
    });

    it('progress from a resource (resources/read)', async () => {
      const seen: unknown[] = [];
      const resource = await client.readResource(
        { uri: 'progress://report' },
        { onprogress: (p: unknown) => seen.push(p) },
      );
      expect(resource.contents).toEqual([{ uri: 'progress://report', mimeType: 'text/plain', text: 'report body' }]);
      expect(seen).toEqual([{ progress: 0.5, total: 1, message: 'half' }]);
    });

    it('a decreasing value ends the call with a generic isError result; what went out before stays', async () => {
      const seen: Array<{ progress: number }> = [];
      const result = await client.callTool(
        { name: 'progressSequence', arguments: { values: [1, 3, 2] } },
        { onprogress: (p: unknown) => seen.push(p as { progress: number }) },
      );
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Tool "progressSequence" failed with an internal error');
      expect(textOf(result)).not.toMatch(/IllegalProgress|increase/);
      expect(seen.map((p) => p.progress)).toEqual([1, 3]);
    });

    it('a percent above 1 is refused the same way', async () => {
      const result = await client.callTool({ name: 'percentOverflow', arguments: {} }, { onprogress: () => undefined });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Tool "percentOverflow" failed with an internal error');
    });

    it('a prompt whose progress goes backwards fails with -32603 (after streaming began)', async () => {
      await expect(
        client.getPrompt({ name: 'backwardsPrompt' }, { onprogress: () => undefined }),
      ).rejects.toMatchObject({
        code: -32603,
      });
    });

    it('everything the server sent through the client is valid 2026-07-28', async () => {
      expect(await assertAllValid(recorder)).toBeGreaterThan(0);
    });
  });

  describe('on the raw wire', () => {
    it('no progress token: no notifications, one application/json body (the emitters still ran)', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'longJob', arguments: { steps: 3 } },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.text).not.toContain('notifications/progress');
      const [message] = messagesOf(response, 'tools/call');
      expect(message.result?.content).toEqual([{ type: 'text', text: 'done 3' }]);
    });

    it.each([
      ['a string token', 'job-42'],
      ['an integer token', 7],
    ])(
      'with %s: text/event-stream, X-Accel-Buffering: no, progress echoing the token, the response last',
      async (_label, token) => {
        const response = await mcpPost(running.mcpUrl, {
          method: 'tools/call',
          params: { name: 'longJob', arguments: { steps: 3 } },
          meta: requestMeta({ progressToken: token }),
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
        expect(response.headers.get('x-accel-buffering')).toBe('no');
        const messages = messagesOf(response, 'tools/call');
        expect(messages).toHaveLength(4);
        expect(messages.slice(0, 3).map((m) => m.params)).toEqual([
          { progressToken: token, progress: 0.5, total: 1.5, message: 'step 1 of 3' },
          { progressToken: token, progress: 1, total: 1.5, message: 'step 2 of 3' },
          { progressToken: token, progress: 1.5, total: 1.5, message: 'step 3 of 3' },
        ]);
        expect(messages[3].id).toBe(response.sentId);
        expect(messages[3].result?.content).toEqual([{ type: 'text', text: 'done 3' }]);
      },
    );

    it('a token on a handler that emits nothing still gets a plain JSON answer', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'chatty', arguments: {} },
        meta: requestMeta({ progressToken: 'quiet' }),
      });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(messagesOf(response, 'tools/call')[0].result?.content).toEqual([{ type: 'text', text: 'chatted' }]);
    });

    it('an illegal value without a token fails the same way (application/json isError result)', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'progressSequence', arguments: { values: [5, 5] } },
      });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const [message] = messagesOf(response, 'tools/call');
      expect(message.result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Tool "progressSequence" failed with an internal error' }],
      });
    });

    it('an illegal value with a token: the progress that was legal, then the isError result, on one stream', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'progressSequence', arguments: { values: [1, 2, 0.5] } },
        meta: requestMeta({ progressToken: 'bad' }),
      });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const messages = messagesOf(response, 'tools/call');
      expect(messages.map((m) => m.method ?? 'response')).toEqual([
        'notifications/progress',
        'notifications/progress',
        'response',
      ]);
      expect(messages[2].result).toMatchObject({ isError: true });
    });

    // spec 2026-07-28: basic/patterns/progress, "Behavior Requirements"
    it('nothing is sent for a request once its response went out', async () => {
      probe.late = undefined;
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'lateProgress', arguments: {} },
        meta: requestMeta({ progressToken: 'late', 'io.modelcontextprotocol/logLevel': 'debug' }),
      });
      const messages = messagesOf(response, 'tools/call');
      expect(messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'response']);
      await until(() => probe.late !== undefined, 2_000, 'the late emit');
      expect(probe.late).toEqual({ progress: false, log: false });
    });

    it('a client that accepts only application/json gets no notifications, just the result', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'longJob', arguments: { steps: 2 } },
        meta: requestMeta({ progressToken: 'json-only' }),
        headers: { accept: 'application/json' },
      });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(messagesOf(response, 'tools/call')[0].result?.content).toEqual([{ type: 'text', text: 'done 2' }]);
    });

    it.each([0, ''])('a falsy progress token (%j) still gets its progress', async (token) => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'longJob', arguments: { steps: 1 } },
        meta: requestMeta({ progressToken: token }),
      });
      const messages = messagesOf(response, 'tools/call');
      expect(messages[0].params).toEqual({ progressToken: token, progress: 0.5, total: 0.5, message: 'step 1 of 1' });
    });

    it.each([1.5, null, true, { id: 1 }])(
      'an ill-typed progress token (%j) is refused with -32602, HTTP 400',
      async (token) => {
        const response = await mcpPost(running.mcpUrl, {
          method: 'tools/call',
          params: { name: 'longJob', arguments: { steps: 1 } },
          meta: requestMeta({ progressToken: token }),
        });
        expect(response.status).toBe(400);
        expect(messagesOf(response, 'tools/call')[0].error?.code).toBe(-32602);
      },
    );

    it('a prompt failing without a token is a plain JSON -32603 error', async () => {
      const response = await mcpPost(running.mcpUrl, { method: 'prompts/get', params: { name: 'backwardsPrompt' } });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const [message] = messagesOf(response, 'prompts/get');
      expect(message.error).toEqual({ code: -32603, message: 'Internal error' });
    });
  });

  describe('a client that reads slower than the handler emits', () => {
    const EMITTED = 20_000;
    const MESSAGE_BYTES = 1_000;

    it('coalesces progress: the handler is not blocked, memory stays bounded, the newest value and the response arrive', async () => {
      const gc = exposeGc();
      probe.flood = undefined;
      const before = retainedBytes(gc);

      const params = {
        name: 'flood',
        arguments: { count: EMITTED, messageBytes: MESSAGE_BYTES },
        _meta: requestMeta({ progressToken: 'flood' }),
      };
      const response = await fetch(running.mcpUrl, {
        method: 'POST',
        headers: mcpHeaders('tools/call', params),
        body: JSON.stringify({ jsonrpc: '2.0', id: 'flood-1', method: 'tools/call', params }),
      });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);

      // Read nothing until the handler has returned: if the writer waited for the client, this would time out.
      await until(() => probe.flood !== undefined, 10_000, 'the flood handler to finish');
      const flood = probe.flood!;
      expect(flood.emitted).toBe(EMITTED);
      expect(flood.finishedAt - flood.startedAt).toBeLessThan(5_000);
      // Let the final response reach the writer before measuring.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const grown = retainedBytes(gc) - before;
      // ~20 MB of frames were produced; a writer that buffered them all would hold at least that much. Without a
      // forced collection, garbage still counts, hence the looser bound.
      expect(grown).toBeLessThan((gc ? 8 : 15) * 1024 * 1024);

      const text = await response.text();
      const messages = sseDataFrames(text).map((data) => JSON.parse(data) as WireMessage);
      const progress = messages
        .filter((m) => m.method === 'notifications/progress')
        .map((m) => m.params as unknown as ProgressParams);

      // Coalesced: far fewer frames arrived than were emitted, and far fewer bytes. (What the kernel's socket
      // buffers absorbed before the socket filled — a few MB on loopback — did arrive in full.)
      expect(progress.length).toBeLessThan(EMITTED / 2);
      expect(text.length).toBeLessThan((EMITTED * MESSAGE_BYTES) / 2);
      expect(progress.length).toBeGreaterThan(0);
      // Still a valid progress sequence: strictly increasing, each frame intact.
      for (let index = 1; index < progress.length; index++) {
        expect(progress[index].progress).toBeGreaterThan(progress[index - 1].progress);
      }
      for (const frame of progress) {
        expect(frame).toMatchObject({ progressToken: 'flood', total: EMITTED });
        expect(frame.message).toHaveLength(MESSAGE_BYTES);
        expect(frame.message!.startsWith(`${frame.progress}:`)).toBe(true);
      }
      // The newest value is never lost, and the final response comes last.
      expect(progress.at(-1)!.progress).toBe(EMITTED);
      const final = messages.at(-1)!;
      expect(final.id).toBe('flood-1');
      expect(final.result?.content).toEqual([{ type: 'text', text: `flooded ${EMITTED}` }]);
      expect(messages.filter((m) => m.id !== undefined)).toHaveLength(1);
      for (const message of messages) assertValidServerMessage(message, 'tools/call');
    });

    it('the newest progress value still arrives when the queue is full of log notifications', async () => {
      probe.flood = undefined;
      const params = {
        name: 'logsThenProgress',
        arguments: { logs: EMITTED, messageBytes: MESSAGE_BYTES, steps: 10 },
        _meta: requestMeta({ progressToken: 'after-logs', 'io.modelcontextprotocol/logLevel': 'info' }),
      };
      const response = await fetch(running.mcpUrl, {
        method: 'POST',
        headers: mcpHeaders('tools/call', params),
        body: JSON.stringify({ jsonrpc: '2.0', id: 'logs-1', method: 'tools/call', params }),
      });
      await until(() => probe.flood !== undefined, 10_000, 'the logging handler to finish');
      // The context reported every progress step as sent.
      expect(probe.flood!.sentCount).toBe(10);

      const messages = sseDataFrames(await response.text()).map((data) => JSON.parse(data) as WireMessage);
      const logs = messages.filter((m) => m.method === 'notifications/message');
      const progress = messages
        .filter((m) => m.method === 'notifications/progress')
        .map((m) => m.params as unknown as ProgressParams);
      expect(logs.length).toBeLessThan(EMITTED / 2);
      expect(messages.at(-1)!.id).toBe('logs-1');
      // ADR 0008: pending progress is coalesced to the newest; the newest value must not be lost because other
      // notifications filled the queue first.
      expect(progress.map((p) => p.progress).at(-1)).toBe(10);
    });

    it('the server still serves other requests normally afterwards', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'longJob', arguments: { steps: 1 } },
      });
      expect(messagesOf(response, 'tools/call')[0].result?.content).toEqual([{ type: 'text', text: 'done 1' }]);
    });
  });
});
