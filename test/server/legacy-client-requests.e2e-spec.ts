import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIGN_IN_URL } from '../fixtures/elicitation.fixture.js';
import { ConfirmForm, Probe } from '../fixtures/interactive.fixture.js';
import { LegacyProbe, legacyModule, PreferencesForm } from '../fixtures/legacy.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import {
  connectLegacyClient,
  legacyPost,
  openLegacyPost,
  rawInitialize,
  type LegacyConnection,
} from '../support/legacy-client.factory.js';
import { assertAllLegacyValid, assertMatchesLegacyDef } from '../support/legacy-schema.validator.js';
import { sleep, until } from '../support/wait.util.js';
import type { WireMessage } from '../support/wire-response.util.js';

/**
 * Server→client requests on the 2025-11-25 wire (spec 2025-11-25: basic/transports, "Sending Messages to the Server";
 * client/elicitation, "URL Mode Elicitation Requests"): the same `ctx.elicit` handlers that answer `input_required` on
 * the 2026 wire send real `elicitation/create`, `sampling/createMessage` and `roots/list` requests on the call's own
 * SSE stream here, and the client's POSTed answers reach them in-process. Undeclared capabilities end in `-32602`
 * (never the 2026-only `-32021`). Then cancellation by `notifications/cancelled` (spec 2025-11-25:
 * basic/utilities/cancellation), the only cancellation signal on this wire (a dropped connection is not one:
 * basic/transports, "Sending Messages to the Server").
 */

/** What a test's client handler receives and returns (the client validates both against the 2025-11-25 schema). */
type Handler = (request: { params: Record<string, unknown> }) => Promise<unknown>;
type HandledMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

const accept = (content: Record<string, unknown>) => ({ action: 'accept' as const, content });

describe.each(ADAPTERS)('2025-11-25 wire: server→client requests and cancellation (%s)', (adapter) => {
  let running: RunningApp;
  let probe: Probe;
  let legacyProbe: LegacyProbe;
  const connections: LegacyConnection[] = [];
  const runs = (name: string) => probe.runs.get(name) ?? 0;

  /** A legacy client declaring `capabilities`, with request handlers registered before the handshake. */
  async function connect(
    capabilities: Record<string, unknown>,
    handlers: Partial<Record<HandledMethod, Handler>> = {},
  ): Promise<LegacyConnection> {
    const connection = await connectLegacyClient(running.mcpUrl, {
      capabilities,
      setup: (client) => {
        for (const [method, handler] of Object.entries(handlers)) {
          // The overloads are typed per method; the handlers here are deliberately loose.
          (client.setRequestHandler as (method: string, handler: Handler) => void)(method, handler);
        }
      },
    });
    connections.push(connection);
    return connection;
  }

  /** Server→client requests the connection received, as recorded on the wire. */
  const serverRequests = (connection: LegacyConnection) =>
    connection.recorder.recorded.filter((record) => {
      const message = record.message as WireMessage;
      return message.method !== undefined && message.id !== undefined;
    });

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [legacyModule()] });
    probe = running.app.get(Probe);
    legacyProbe = running.app.get(LegacyProbe);
  });
  beforeEach(() => {
    probe.runs.clear();
    probe.deleted.length = 0;
    probe.aborted = undefined;
    legacyProbe.waited = undefined;
  });
  afterAll(async () => {
    for (const connection of connections) await connection.client.close();
    await running?.close();
  });

  describe('elicitation (form mode)', () => {
    it('a real elicitation/create request on the call stream; accept reaches the handler, which runs once', async () => {
      const asked: unknown[] = [];
      const connection = await connect(
        { elicitation: { form: {} } },
        {
          'elicitation/create': async (request) => {
            asked.push(request.params);
            return accept({ confirm: true, reason: 'tidy up' });
          },
        },
      );
      const result = await connection.client.callTool({ name: 'confirmDelete', arguments: { target: 'backups' } });
      expect(result.content).toEqual([{ type: 'text', text: 'deleted backups' }]);
      expect(asked).toEqual([
        { mode: 'form', message: 'Delete backups?', requestedSchema: ConfirmForm.requestedSchema },
      ]);
      expect(probe.deleted).toEqual(['backups']);
      // No replay on this wire: the handler awaited the live answer (ADR 0011; docs/two-wires.md).
      expect(runs('confirmDelete')).toBe(1);

      // On the wire: the request came on the tools/call POST stream before its response (spec 2025-11-25:
      // basic/transports, "Sending Messages to the Server") …
      await connection.recorder.settled();
      const [request] = serverRequests(connection);
      expect([request.verb, request.requestMethod]).toEqual(['POST', 'tools/call']);
      const frames = connection.recorder.recorded.filter(
        (record) => record.requestMethod === 'tools/call' && record.requestId === request.requestId,
      );
      expect(frames.map((frame) => (frame.message as WireMessage).method ?? 'response')).toEqual([
        'elicitation/create',
        'response',
      ]);
      // … and the client's answer was POSTed with the session header and accepted with 202 (spec 2025-11-25:
      // basic/transports, "Sending Messages to the Server").
      const answer = connection.recorder.exchanges.find((exchange) => exchange.bodyWasResponse)!;
      expect(answer.status).toBe(202);
      expect((answer.sentBody as { id: unknown }).id).toBe((request.message as WireMessage).id);
      expect(answer.requestHeaders.get('mcp-session-id')).toBe(connection.sessionId);
    });

    it.each([
      [{ action: 'decline' }, 'declined'],
      [{ action: 'cancel' }, 'cancelled'],
      [accept({ confirm: false }), 'kept'],
    ])('the answer %j reaches the handler', async (answer, text) => {
      const connection = await connect({ elicitation: {} }, { 'elicitation/create': async () => answer });
      const result = await connection.client.callTool({ name: 'confirmDelete', arguments: { target: 'logs' } });
      expect(result.content).toEqual([{ type: 'text', text }]);
      expect(probe.deleted).toEqual([]);
    });

    it('a form with defaults on every field and all five enum shapes', async () => {
      let params: Record<string, unknown> | undefined;
      const connection = await connect(
        { elicitation: { form: {} } },
        {
          'elicitation/create': async (request) => {
            params = request.params as Record<string, unknown>;
            return accept({
              nickname: 'Ada',
              volume: 7,
              retries: 1,
              newsletter: false,
              size: 'l',
              colour: 'red',
              toppings: ['ham', 'olives'],
              days: ['tue'],
              plan: 'pro',
            });
          },
        },
      );
      const result = await connection.client.callTool({ name: 'preferences', arguments: {} });
      expect(result.content).toEqual([
        {
          type: 'text',
          text: 'prefs {"nickname":"Ada","volume":7,"retries":1,"newsletter":false,"size":"l","colour":"red","toppings":["ham","olives"],"days":["tue"],"plan":"pro"}',
        },
      ]);
      expect(params?.requestedSchema).toEqual(PreferencesForm.requestedSchema);
      assertMatchesLegacyDef('ElicitRequestFormParams', params);
      const properties = (params!.requestedSchema as { properties: Record<string, Record<string, unknown>> })
        .properties;
      assertMatchesLegacyDef('UntitledSingleSelectEnumSchema', properties.size);
      assertMatchesLegacyDef('TitledSingleSelectEnumSchema', properties.colour);
      assertMatchesLegacyDef('UntitledMultiSelectEnumSchema', properties.toppings);
      assertMatchesLegacyDef('TitledMultiSelectEnumSchema', properties.days);
      assertMatchesLegacyDef('LegacyTitledEnumSchema', properties.plan);
      expect(properties.plan.enumNames).toEqual(['Free plan', 'Pro plan']);
      expect(Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, schema.default]))).toEqual({
        nickname: 'anon',
        volume: 2.5,
        retries: 3,
        newsletter: true,
        size: 'm',
        colour: 'blue',
        toppings: ['cheese'],
        days: ['mon'],
        plan: 'free',
      });
    });

    it('content that breaks the form is asked for again; two sequential elicitations in one run', async () => {
      const messages: string[] = [];
      const connection = await connect(
        { elicitation: { form: {} } },
        {
          'elicitation/create': async (request) => {
            const message = (request.params as { message: string }).message;
            messages.push(message);
            if (message === 'What is your name?') return accept({ name: messages.length === 1 ? '' : 'Ada' });
            return accept({ colour: 'blue' });
          },
        },
      );
      const result = await connection.client.callTool({ name: 'twoStep', arguments: { greeting: 'hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'hi Ada, you like blue' }]);
      expect(messages).toEqual(['What is your name?', 'What is your name?', 'Hi Ada, pick a colour']);
      expect(runs('twoStep')).toBe(1);
    });

    it('elicitAll sends its requests on the same stream and waits for every answer', async () => {
      const connection = await connect(
        { elicitation: { form: {} } },
        {
          'elicitation/create': async (request) => {
            const message = (request.params as { message: string }).message;
            if (message === 'Name?') return accept({ name: 'Grace' });
            if (message === 'Age?') return accept({ age: 85 });
            return accept({ confirm: true });
          },
        },
      );
      const result = await connection.client.callTool({ name: 'survey', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'Grace is 85, share=true' }]);
      await connection.recorder.settled();
      const requests = serverRequests(connection);
      expect(requests).toHaveLength(3);
      expect(new Set(requests.map((request) => (request.message as WireMessage).id)).size).toBe(3);
      expect(runs('survey')).toBe(1);
    });

    it('a prompt and a resource elicit on this wire too', async () => {
      const connection = await connect(
        { elicitation: { form: {} } },
        {
          'elicitation/create': async (request) =>
            (request.params as { message: string }).message === 'Who is reading?'
              ? accept({ name: 'Linus' })
              : accept({ confirm: true }),
        },
      );
      const prompt = await connection.client.getPrompt({ name: 'confirmDelete', arguments: { target: 'logs' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Delete logs carefully.' } }]);
      const resource = await connection.client.readResource({ uri: 'secret://note' });
      expect(resource.contents).toEqual([{ uri: 'secret://note', mimeType: 'text/plain', text: 'note for Linus' }]);
    });
  });

  // spec 2025-11-25: client/elicitation, "URL Mode Elicitation Requests"
  describe('elicitation (URL mode)', () => {
    it('URL-mode requests carry a fresh elicitationId each time', async () => {
      const asked: Array<Record<string, unknown>> = [];
      const connection = await connect(
        { elicitation: { url: {} } },
        {
          'elicitation/create': async (request) => {
            asked.push(request.params as Record<string, unknown>);
            return { action: asked.length === 1 ? 'accept' : 'decline' };
          },
        },
      );
      expect((await connection.client.callTool({ name: 'connectAccount', arguments: {} })).content).toEqual([
        { type: 'text', text: 'sign-in accept' },
      ]);
      expect((await connection.client.callTool({ name: 'connectAccount', arguments: {} })).content).toEqual([
        { type: 'text', text: 'sign-in decline' },
      ]);
      expect(asked).toHaveLength(2);
      for (const params of asked) {
        expect(params).toMatchObject({ mode: 'url', message: 'Sign in to the example service', url: SIGN_IN_URL });
        expect(params.elicitationId).toEqual(expect.any(String));
        expect((params.elicitationId as string).length).toBeGreaterThan(0);
        assertMatchesLegacyDef('ElicitRequestURLParams', params);
      }
      expect(asked[0].elicitationId).not.toBe(asked[1].elicitationId);
    });
  });

  // spec 2025-11-25: basic/lifecycle, "Capability Negotiation" and "Operation"
  describe('capabilities declared at initialize govern the session', () => {
    it.each([
      ['no elicitation capability, form needed', {}, 'confirmDelete'],
      ['url only, form needed', { elicitation: { url: {} } }, 'confirmDelete'],
      ['form only, url needed', { elicitation: { form: {} } }, 'connectAccount'],
      ['no sampling capability', {}, 'haiku'],
      ['sampling without tools, tools needed', { sampling: {} }, 'samplingWithTools'],
      ['no roots capability', {}, 'listRoots'],
    ])('%s: a JSON-RPC -32602 (never -32021), and no request is sent', async (_case, capabilities, tool) => {
      const connection = await connect(capabilities);
      const args = tool === 'confirmDelete' ? { target: 'x' } : {};
      await expect(connection.client.callTool({ name: tool, arguments: args })).rejects.toMatchObject({ code: -32602 });
      await connection.recorder.settled();
      expect(serverRequests(connection)).toEqual([]);
      const response = connection.recorder.recorded.filter((record) => record.requestMethod === 'tools/call').at(-1)!;
      expect(response.status).toBe(200);
      expect((response.message as WireMessage).error?.code).toBe(-32602);
    });

    it('ctx.canElicit reads the session capabilities: a tool with a fallback uses it', async () => {
      const without = await connect({});
      expect((await without.client.callTool({ name: 'fallback', arguments: {} })).content).toEqual([
        { type: 'text', text: 'no elicitation: used the safe default' },
      ]);
      const withForm = await connect(
        { elicitation: { form: {} } },
        { 'elicitation/create': async () => accept({ confirm: true }) },
      );
      expect((await withForm.client.callTool({ name: 'fallback', arguments: {} })).content).toEqual([
        { type: 'text', text: 'risky option' },
      ]);
    });
  });

  describe('sampling and roots', () => {
    it('sampling/createMessage reaches the client handler; its answer reaches the tool', async () => {
      const asked: unknown[] = [];
      const connection = await connect(
        { sampling: {} },
        {
          'sampling/createMessage': async (request) => {
            asked.push(request.params);
            return {
              role: 'assistant',
              content: { type: 'text', text: 'Modules within modules' },
              model: 'test-model',
            };
          },
        },
      );
      const result = await connection.client.callTool({ name: 'haiku', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'test-model: Modules within modules' }]);
      expect(asked).toEqual([
        { messages: [{ role: 'user', content: { type: 'text', text: 'A haiku about Nest' } }], maxTokens: 60 },
      ]);
      await connection.recorder.settled();
      expect(serverRequests(connection).map((record) => (record.message as WireMessage).method)).toEqual([
        'sampling/createMessage',
      ]);
    });

    it('sampling with tools for a client that declared sampling.tools', async () => {
      const connection = await connect(
        { sampling: { tools: {} } },
        {
          'sampling/createMessage': async (request) => {
            expect(request.params.tools).toEqual([{ name: 'lookup', inputSchema: { type: 'object' } }]);
            return {
              role: 'assistant',
              content: { type: 'text', text: 'plan' },
              model: 'planner',
              stopReason: 'endTurn',
            };
          },
        },
      );
      expect((await connection.client.callTool({ name: 'samplingWithTools', arguments: {} })).content).toEqual([
        { type: 'text', text: 'planned by planner' },
      ]);
    });

    it('roots/list reaches the client handler', async () => {
      let asked = 0;
      const connection = await connect(
        { roots: { listChanged: true } },
        {
          'roots/list': async () => {
            asked++;
            return { roots: [{ uri: 'file:///work', name: 'work' }, { uri: 'file:///tmp' }] };
          },
        },
      );
      expect((await connection.client.callTool({ name: 'listRoots', arguments: {} })).content).toEqual([
        { type: 'text', text: 'file:///work file:///tmp' },
      ]);
      expect(asked).toBe(1);
      // notifications/roots/list_changed is accepted (202) and changes nothing.
      await connection.client.sendRootsListChanged();
      await connection.recorder.settled();
      expect(
        connection.recorder.exchanges.find((exchange) => exchange.requestMethod === 'notifications/roots/list_changed')
          ?.status,
      ).toBe(202);
    });

    it('a client that answers with a JSON-RPC error fails the call with a JSON-RPC error, and the session lives on', async () => {
      const connection = await connect(
        { roots: {} },
        {
          'roots/list': async () => {
            throw new Error('no roots for you');
          },
        },
      );
      await expect(connection.client.callTool({ name: 'listRoots', arguments: {} })).rejects.toMatchObject({
        code: expect.any(Number),
      });
      await expect(
        connection.client.callTool({ name: 'echo', arguments: { text: 'still here' } }),
      ).resolves.toMatchObject({
        content: [{ type: 'text', text: 'echo: still here' }],
      });
    });
  });

  // spec 2025-11-25: basic/utilities/cancellation, "Behavior Requirements"; a dropped connection is not a
  // cancellation: basic/transports, "Sending Messages to the Server".
  describe('cancellation', () => {
    const cancel = (sessionId: string, requestId: string, reason = 'user hit stop') =>
      legacyPost(running.mcpUrl, { method: 'notifications/cancelled', params: { requestId, reason } }, { sessionId });

    /** Starts `progressThenWait` on a raw session and returns once its progress frame shows the handler runs. */
    async function startWaiting(sessionId: string, id: string) {
      const stream = await openLegacyPost(
        running.mcpUrl,
        { id, method: 'tools/call', params: { name: 'progressThenWait', arguments: {}, _meta: { progressToken: id } } },
        { sessionId },
      );
      expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await stream.waitFor((message) => message.method === 'notifications/progress', 'the progress frame');
      return stream;
    }

    it('notifications/cancelled {requestId} aborts the handler signal (waitForAbort), then the call answers', async () => {
      const { sessionId } = await rawInitialize(running.mcpUrl);
      let settled = false;
      const call = legacyPost(
        running.mcpUrl,
        { id: 'call-1', method: 'tools/call', params: { name: 'waitForAbort', arguments: {} } },
        { sessionId },
      ).finally(() => {
        settled = true;
      });
      // waitForAbort cannot be observed starting, so the cancellation is repeated until it lands (a cancellation
      // for an unknown or finished id is ignored, as the spec asks).
      const deadline = Date.now() + 3_000;
      while (!settled && Date.now() < deadline) {
        const accepted = await cancel(sessionId, 'call-1');
        expect(accepted.status).toBe(202);
        expect(accepted.text).toBe('');
        await Promise.race([call.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 50))]);
      }
      const answer = await call;
      expect(answer.status).toBe(200);
      expect(probe.aborted?.reason).toBeInstanceOf(Error);
      expect((probe.aborted?.reason as Error | undefined)?.message).toBe('user hit stop');
      // The POST ends: here with the handler's late result (the spec says a cancelled request SHOULD get none).
      for (const message of answer.messages) expect(message.id ?? 'call-1').toBe('call-1');
    });

    it('cancelling a streaming call ends its stream; the reason reaches ctx.signal; other calls go on', async () => {
      const { sessionId } = await rawInitialize(running.mcpUrl);
      const other = await startWaiting(sessionId, 'call-2');
      const stream = await startWaiting(sessionId, 'call-3');
      expect(legacyProbe.waited).toBeUndefined();

      expect((await cancel(sessionId, 'call-3', 'enough')).status).toBe(202);
      await Promise.race([stream.ended, sleep(1_000)]);
      expect(stream.endedByServer).toBe(true);
      expect(stream.problems).toEqual([]);
      await until(() => legacyProbe.waited !== undefined, 1_000, 'the handler to see the abort');
      expect((legacyProbe.waited!.reason as Error).message).toBe('enough');

      // Cancellations are per request id: call-2 still runs until its own.
      legacyProbe.waited = undefined;
      await sleep(50);
      expect(other.endedByServer).toBe(false);
      expect((await cancel(sessionId, 'call-2')).status).toBe(202);
      await other.ended;
      expect(other.problems).toEqual([]);
      expect((legacyProbe.waited as { reason: Error } | undefined)?.reason.message).toBe('user hit stop');
    });

    it('a cancellation from another session does not touch the call', async () => {
      const { sessionId: owner } = await rawInitialize(running.mcpUrl);
      const { sessionId: stranger } = await rawInitialize(running.mcpUrl);
      const stream = await startWaiting(owner, 'shared-id');
      expect((await cancel(stranger, 'shared-id', 'not yours')).status).toBe(202);
      await sleep(100);
      expect(legacyProbe.waited).toBeUndefined();
      expect((await cancel(owner, 'shared-id', 'mine')).status).toBe(202);
      await stream.ended;
      expect((legacyProbe.waited as { reason: Error } | undefined)?.reason.message).toBe('mine');
    });

    it('a dropped connection is not a cancellation on this wire', async () => {
      const { sessionId } = await rawInitialize(running.mcpUrl);
      const stream = await startWaiting(sessionId, 'drop-1');
      stream.close();
      await stream.ended;
      await sleep(150);
      expect(legacyProbe.waited).toBeUndefined();
      // Only the explicit cancellation stops it.
      expect((await cancel(sessionId, 'drop-1', 'now really')).status).toBe(202);
      await until(() => legacyProbe.waited !== undefined, 1_000, 'the handler to see the abort');
      expect((legacyProbe.waited!.reason as Error).message).toBe('now really');
    });

    it('the official client cancels with notifications/cancelled when its request signal aborts', async () => {
      const connection = await connect({});
      const controller = new AbortController();
      let started = false;
      const call = connection.client.callTool(
        { name: 'progressThenWait', arguments: {} },
        { signal: controller.signal, onprogress: () => (started = true) },
      );
      await until(() => started, 2_000, 'the handler to start');
      controller.abort('changed my mind');
      await expect(call).rejects.toBeDefined();
      await until(() => legacyProbe.waited !== undefined, 2_000, 'the handler to see the abort');
      await until(
        () => connection.recorder.exchanges.some((exchange) => exchange.requestMethod === 'notifications/cancelled'),
        1_000,
        'the POSTed cancellation',
      );
      const posted = connection.recorder.exchanges.find(
        (exchange) => exchange.requestMethod === 'notifications/cancelled',
      )!;
      expect(posted.status).toBe(202);
      const callId = connection.recorder.exchanges.find(
        (exchange) => exchange.requestMethod === 'tools/call',
      )!.requestId;
      expect((posted.sentBody as { params: { requestId: unknown } }).params.requestId).toBe(callId);
    });
  });

  describe('a client that never answers (clientRequestTimeoutMs: 200)', () => {
    let slow: RunningApp;

    beforeAll(async () => {
      slow = await startApp(adapter, { imports: [legacyModule({ clientRequestTimeoutMs: 200 })] });
    });
    afterAll(async () => {
      await slow?.close();
    });

    it('the call fails with a JSON-RPC error after the timeout; a late answer is accepted (202) and dropped', async () => {
      const { sessionId } = await rawInitialize(slow.mcpUrl, { capabilities: { elicitation: { form: {} } } });
      const started = Date.now();
      const stream = await openLegacyPost(
        slow.mcpUrl,
        { id: 'slow-1', method: 'tools/call', params: { name: 'confirmDelete', arguments: { target: 'slow' } } },
        { sessionId },
      );
      const request = await stream.waitFor(
        (message) => message.method === 'elicitation/create',
        'the elicitation request',
      );
      await Promise.race([stream.ended, sleep(2_000)]);
      expect(stream.endedByServer).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      expect(stream.problems).toEqual([]);
      const final = stream.messages.at(-1)!;
      expect(final).toMatchObject({ id: 'slow-1', error: { code: -32603 } });

      const late = await legacyPost(
        slow.mcpUrl,
        { id: request.id, result: { action: 'accept', content: { confirm: true } } },
        { sessionId },
      );
      expect(late.status).toBe(202);
      expect(slow.app.get(Probe).deleted).toEqual([]);
      expect(
        (await legacyPost(slow.mcpUrl, { id: 'after', method: 'ping' }, { sessionId })).messages[0].result,
      ).toEqual({});
    });
  });

  it('every message the server sent on the legacy wire matches the 2025-11-25 schema', async () => {
    let checked = 0;
    for (const connection of connections) checked += await assertAllLegacyValid(connection.recorder);
    expect(checked).toBeGreaterThan(20);
  });
});
