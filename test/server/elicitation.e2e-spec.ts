import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfirmForm, Probe } from '../fixtures/interactive.fixture.js';
import {
  AgeForm,
  ColourForm,
  elicitationModule,
  EmailForm,
  NameForm,
  SIGN_IN_URL,
} from '../fixtures/elicitation.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import {
  assertAllValid,
  assertValidServerMessage,
  recordingFetch,
  sseDataFrames,
  type RecordingFetch,
} from '../support/wire-schema.validator.js';

/**
 * Elicitation as Multi Round-Trip Requests (spec 2026-07-28: basic/patterns/mrtr and client/elicitation; ADR 0003,
 * ADR 0004): the official client fulfilling input requests itself, the manual flow round by round, and every way a
 * retry can be wrong. Protocol errors are checked on the raw wire, where the HTTP status is visible; every server
 * message is validated against the official schema.
 */

const FORM = { elicitation: { form: {} } };
const ALL_CAPS = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} };

interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  requestState?: string;
}

interface CallOptions {
  capabilities?: Record<string, unknown>;
  inputResponses?: unknown;
  requestState?: unknown;
  /** The caller, as the fixture's principal source reads it (`x-user`). */
  user?: string;
  method?: 'tools/call' | 'prompts/get' | 'resources/read';
}

interface Outcome {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: { requiredCapabilities?: unknown } };
}

const accept = (content: Record<string, string | number | boolean | string[]>) => ({
  action: 'accept' as const,
  content,
});

/** One raw 2026-07-28 request for a tool (or prompt / resource) with MRTR params; the answer is schema-checked. */
async function rawCall(
  url: URL,
  target: string,
  args: Record<string, unknown> | undefined,
  options: CallOptions = {},
): Promise<Outcome> {
  const method = options.method ?? 'tools/call';
  const params: Record<string, unknown> = method === 'resources/read' ? { uri: target } : { name: target };
  if (args !== undefined) params.arguments = args;
  if ('inputResponses' in options) params.inputResponses = options.inputResponses;
  if ('requestState' in options) params.requestState = options.requestState;
  const response = await mcpPost(url, {
    method,
    params,
    meta: requestMeta({ 'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {} }),
    headers: options.user ? { 'x-user': options.user } : undefined,
  });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  assertValidServerMessage(response.json, method);
  const message = response.json as { id: unknown; result?: Record<string, unknown>; error?: Outcome['error'] };
  expect(message.id).toBe(response.sentId);
  return { status: response.status, result: message.result, error: message.error };
}

function inputRequired(outcome: Outcome): InputRequiredResult {
  expect(outcome.error).toBeUndefined();
  expect(outcome.status).toBe(200);
  expect(outcome.result?.resultType).toBe('input_required');
  const result = outcome.result as unknown as InputRequiredResult;
  expect(typeof result.requestState).toBe('string');
  return result;
}

function completeText(outcome: Outcome): string {
  expect(outcome.error).toBeUndefined();
  expect(outcome.result?.resultType).toBe('complete');
  const content = outcome.result?.content as Array<{ type: string; text: string }>;
  return content[0].text;
}

function invalidParams(outcome: Outcome, reason?: RegExp): void {
  expect(outcome.result).toBeUndefined();
  expect(outcome.error?.code).toBe(-32602);
  if (reason) expect(outcome.error?.message).toMatch(reason);
}

function missingCapability(outcome: Outcome, requiredCapabilities: Record<string, unknown>): void {
  expect(outcome.status).toBe(400);
  expect(outcome.result).toBeUndefined();
  expect(outcome.error?.code).toBe(-32021);
  expect(outcome.error?.data?.requiredCapabilities).toEqual(requiredCapabilities);
}

/**
 * Flips the lowest bit of the last sealed byte. (Changing the last base64url *character* is not always a change:
 * its low bits may be padding that decoders ignore.)
 */
function flipLastByte(state: string): string {
  const [prefix, body] = state.split('.');
  const bytes = Buffer.from(body, 'base64url');
  bytes[bytes.length - 1] ^= 0x01;
  return `${prefix}.${bytes.toString('base64url')}`;
}

/** Flips one character in the middle of a sealed state. */
function tamper(state: string): string {
  const at = Math.floor(state.length / 2);
  return `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`;
}

describe.each(ADAPTERS)('elicitation (%s)', (adapter) => {
  let running: RunningApp;
  let probe: Probe;
  let recorder: RecordingFetch;
  const clients: Client[] = [];
  const runs = (name: string) => probe.runs.get(name) ?? 0;

  /** An official client on the recording fetch, declaring `capabilities`. */
  async function client(capabilities: Record<string, unknown>): Promise<Client> {
    const connected = await connectClient(running.mcpUrl, { capabilities, fetch: recorder.fetch });
    clients.push(connected);
    return connected;
  }

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [elicitationModule()] });
    probe = running.app.get(Probe);
    recorder = recordingFetch();
  });
  beforeEach(() => {
    probe.runs.clear();
    probe.deleted.length = 0;
  });
  afterAll(async () => {
    for (const connected of clients) await connected.close();
    await running?.close();
  });

  describe('auto-fulfilment by the official client', () => {
    it('a form round trip: the handler sees the form request and the tool gets the answer', async () => {
      const mcp = await client(FORM);
      const asked: unknown[] = [];
      mcp.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { confirm: true, reason: 'tidy up' } };
      });
      const result = await mcp.callTool({ name: 'confirmDelete', arguments: { target: 'backups' } });
      expect(result.content).toEqual([{ type: 'text', text: 'deleted backups' }]);
      expect(asked).toEqual([
        { mode: 'form', message: 'Delete backups?', requestedSchema: ConfirmForm.requestedSchema },
      ]);
      expect(probe.deleted).toContain('backups');
      expect(runs('confirmDelete')).toBe(2);
    });

    it('two sequential elicitations over three rounds', async () => {
      const mcp = await client(FORM);
      const messages: string[] = [];
      mcp.setRequestHandler('elicitation/create', async (request) => {
        const params = request.params as { message: string; requestedSchema: unknown };
        messages.push(params.message);
        if (params.message === 'What is your name?') {
          expect(params.requestedSchema).toEqual(NameForm.requestedSchema);
          return accept({ name: 'Ada' });
        }
        expect(params.requestedSchema).toEqual(ColourForm.requestedSchema);
        return accept({ colour: 'blue' });
      });
      const result = await mcp.callTool({ name: 'twoStep', arguments: { greeting: 'hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'hi Ada, you like blue' }]);
      expect(messages).toEqual(['What is your name?', 'Hi Ada, pick a colour']);
      expect(runs('twoStep')).toBe(3);
    });

    it('three requests of one round (elicitAll) are all answered before one retry', async () => {
      const mcp = await client(FORM);
      let asked = 0;
      mcp.setRequestHandler('elicitation/create', async (request) => {
        asked++;
        const message = (request.params as { message: string }).message;
        if (message === 'Name?') return accept({ name: 'Grace' });
        if (message === 'Age?') return accept({ age: 85 });
        return accept({ confirm: true });
      });
      const result = await mcp.callTool({ name: 'survey', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'Grace is 85, share=true' }]);
      expect(asked).toBe(3);
      expect(runs('survey')).toBe(2);
    });

    it('URL mode for a client that declares elicitation.url', async () => {
      const mcp = await client({ elicitation: { url: {} } });
      const asked: unknown[] = [];
      mcp.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params);
        return { action: 'accept' };
      });
      const result = await mcp.callTool({ name: 'connectAccount', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'sign-in accept' }]);
      expect(asked).toEqual([{ mode: 'url', message: 'Sign in to the example service', url: SIGN_IN_URL }]);
    });

    it('sampling and roots through their own handlers', async () => {
      const mcp = await client({ sampling: {}, roots: {} });
      mcp.setRequestHandler('sampling/createMessage', async (request) => {
        expect(request.params.maxTokens).toBe(60);
        return { role: 'assistant', content: { type: 'text', text: 'Modules within modules' }, model: 'test-model' };
      });
      mcp.setRequestHandler('roots/list', async () => ({
        roots: [{ uri: 'file:///work', name: 'work' }, { uri: 'file:///tmp' }],
      }));
      expect((await mcp.callTool({ name: 'haiku', arguments: {} })).content).toEqual([
        { type: 'text', text: 'test-model: Modules within modules' },
      ]);
      expect((await mcp.callTool({ name: 'listRoots', arguments: {} })).content).toEqual([
        { type: 'text', text: 'file:///work file:///tmp' },
      ]);
    });

    it('a prompt and a resource can elicit too', async () => {
      const mcp = await client(FORM);
      mcp.setRequestHandler('elicitation/create', async (request) => {
        const message = (request.params as { message: string }).message;
        return message === 'Who is reading?' ? accept({ name: 'Linus' }) : accept({ confirm: true });
      });
      const prompt = await mcp.getPrompt({ name: 'confirmDelete', arguments: { target: 'logs' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Delete logs carefully.' } }]);
      const resource = await mcp.readResource({ uri: 'secret://note' });
      expect(resource.contents).toEqual([{ uri: 'secret://note', mimeType: 'text/plain', text: 'note for Linus' }]);
    });

    it('a client without the elicitation capability gets -32021 naming it', async () => {
      const mcp = await client({});
      await expect(mcp.callTool({ name: 'confirmDelete', arguments: { target: 'x' } })).rejects.toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      });
    });
  });

  describe('manual mode (official client, allowInputRequired)', () => {
    it('a multi-round flow with a different requestState each round', async () => {
      const mcp = await client(FORM);
      const manual = { allowInputRequired: true } as never;
      const args = { greeting: 'hey' };

      const round1 = (await mcp.callTool(
        { name: 'twoStep', arguments: args },
        manual,
      )) as unknown as InputRequiredResult;
      expect(round1.resultType).toBe('input_required');
      expect(Object.keys(round1.inputRequests!)).toEqual(['name']);
      expect(round1.inputRequests!.name).toEqual({
        method: 'elicitation/create',
        params: { mode: 'form', message: 'What is your name?', requestedSchema: NameForm.requestedSchema },
      });

      const round2 = (await mcp.callTool(
        {
          name: 'twoStep',
          arguments: args,
          inputResponses: { name: accept({ name: 'Alan' }) },
          requestState: round1.requestState,
        } as never,
        manual,
      )) as unknown as InputRequiredResult;
      expect(round2.resultType).toBe('input_required');
      expect(Object.keys(round2.inputRequests!)).toEqual(['colour']);
      expect(round2.inputRequests!.colour.params?.message).toBe('Hi Alan, pick a colour');
      expect(round2.requestState).toEqual(expect.any(String));
      expect(round2.requestState).not.toBe(round1.requestState);

      // The answer of round 2 lives in the new state: round 3 sends only the colour.
      const round3 = await mcp.callTool(
        {
          name: 'twoStep',
          arguments: args,
          inputResponses: { colour: accept({ colour: 'red' }) },
          requestState: round2.requestState,
        } as never,
        manual,
      );
      expect(round3.content).toEqual([{ type: 'text', text: 'hey Alan, you like red' }]);
      expect(runs('twoStep')).toBe(3);
      expect(runs('twoStep:afterName')).toBe(2);
    });

    it('a tampered requestState is a -32602 protocol error', async () => {
      const mcp = await client(FORM);
      const manual = { allowInputRequired: true } as never;
      const round1 = (await mcp.callTool({ name: 'twoStep', arguments: {} }, manual)) as unknown as InputRequiredResult;
      await expect(
        mcp.callTool(
          {
            name: 'twoStep',
            arguments: {},
            inputResponses: { name: accept({ name: 'Eve' }) },
            requestState: tamper(round1.requestState!),
          } as never,
          manual,
        ),
      ).rejects.toMatchObject({ code: -32602 });
      expect(runs('twoStep')).toBe(1);
    });
  });

  describe('on the raw wire', () => {
    it('elicitAll asks three things in one round; a partial answer re-asks only what is missing', async () => {
      const round1 = inputRequired(await rawCall(running.mcpUrl, 'survey', {}, { capabilities: FORM }));
      expect(round1.inputRequests).toEqual({
        name: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Name?', requestedSchema: NameForm.requestedSchema },
        },
        age: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Age?', requestedSchema: AgeForm.requestedSchema },
        },
        confirm: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Share it?', requestedSchema: ConfirmForm.requestedSchema },
        },
      });
      const round2 = inputRequired(
        await rawCall(
          running.mcpUrl,
          'survey',
          {},
          {
            capabilities: FORM,
            requestState: round1.requestState,
            inputResponses: { name: accept({ name: 'Ken' }), age: accept({ age: 79 }) },
          },
        ),
      );
      expect(Object.keys(round2.inputRequests!)).toEqual(['confirm']);
      const text = completeText(
        await rawCall(
          running.mcpUrl,
          'survey',
          {},
          {
            capabilities: FORM,
            requestState: round2.requestState,
            inputResponses: { confirm: accept({ confirm: false }) },
          },
        ),
      );
      expect(text).toBe('Ken is 79, share=false');
      expect(runs('survey')).toBe(3);
    });

    it('URL mode: the input request carries mode, message and url, and needs elicitation.url', async () => {
      const round1 = inputRequired(
        await rawCall(running.mcpUrl, 'connectAccount', {}, { capabilities: { elicitation: { url: {} } } }),
      );
      expect(round1.inputRequests).toEqual({
        signIn: {
          method: 'elicitation/create',
          params: { mode: 'url', message: 'Sign in to the example service', url: SIGN_IN_URL },
        },
      });
      for (const action of ['accept', 'decline', 'cancel']) {
        const done = await rawCall(
          running.mcpUrl,
          'connectAccount',
          {},
          {
            capabilities: { elicitation: { url: {} } },
            requestState: round1.requestState,
            inputResponses: { signIn: { action } },
          },
        );
        expect(completeText(done)).toBe(`sign-in ${action}`);
      }
      // `elicitation: {}` and `{ form: {} }` mean form only (spec 2026-07-28: client/elicitation, "Capabilities").
      missingCapability(await rawCall(running.mcpUrl, 'connectAccount', {}, { capabilities: { elicitation: {} } }), {
        elicitation: { url: {} },
      });
      missingCapability(await rawCall(running.mcpUrl, 'connectAccount', {}, { capabilities: FORM }), {
        elicitation: { url: {} },
      });
    });

    it('`elicitation: {}` declares form mode', async () => {
      inputRequired(
        await rawCall(running.mcpUrl, 'confirmDelete', { target: 'a' }, { capabilities: { elicitation: {} } }),
      );
    });

    it('a client that declares only URL mode cannot be asked a form', async () => {
      missingCapability(
        await rawCall(running.mcpUrl, 'confirmDelete', { target: 'a' }, { capabilities: { elicitation: { url: {} } } }),
        {
          elicitation: { form: {} },
        },
      );
    });

    it.each([
      ['decline', 'declined'],
      ['cancel', 'cancelled'],
    ])('a %s answer is a real answer, handled by the tool', async (action, text) => {
      const round1 = inputRequired(
        await rawCall(running.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM }),
      );
      const done = await rawCall(
        running.mcpUrl,
        'confirmDelete',
        { target: 'db' },
        {
          capabilities: FORM,
          requestState: round1.requestState,
          inputResponses: { confirm: { action } },
        },
      );
      expect(completeText(done)).toBe(text);
    });

    it('a declined first step ends a multi-step flow', async () => {
      const round1 = inputRequired(await rawCall(running.mcpUrl, 'twoStep', {}, { capabilities: FORM }));
      const done = await rawCall(
        running.mcpUrl,
        'twoStep',
        {},
        {
          capabilities: FORM,
          requestState: round1.requestState,
          inputResponses: { name: { action: 'decline' } },
        },
      );
      expect(completeText(done)).toBe('no name (decline)');
    });

    describe('requestState that must be refused (the handler never runs)', () => {
      async function firstRound(
        tool = 'confirmDelete',
        args: Record<string, unknown> = { target: 'db' },
        user?: string,
      ) {
        const round1 = inputRequired(await rawCall(running.mcpUrl, tool, args, { capabilities: FORM, user }));
        probe.runs.clear();
        return round1;
      }

      it.each([
        ['one character changed in the middle', (state: string) => tamper(state)],
        ['one bit of the last byte (the GCM tag) flipped', (state: string) => flipLastByte(state)],
        ['truncated', (state: string) => state.slice(0, -8)],
        ['another version prefix', (state: string) => `v2${state.slice(2)}`],
        ['not base64url at all', () => 'v1.!!!!'],
        ['empty', () => ''],
      ])('tampered: %s → -32602', async (_label, change) => {
        const round1 = await firstRound();
        const outcome = await rawCall(
          running.mcpUrl,
          'confirmDelete',
          { target: 'db' },
          {
            capabilities: FORM,
            requestState: change(round1.requestState!),
            inputResponses: { confirm: accept({ confirm: true }) },
          },
        );
        invalidParams(outcome, /requestState/);
        expect(runs('confirmDelete')).toBe(0);
        expect(probe.deleted).not.toContain('db');
      });

      it.each([
        ['a number', 42],
        ['an object', { state: 'x' }],
        ['null', null],
      ])('a requestState that is %s → -32602', async (_label, requestState) => {
        invalidParams(
          await rawCall(running.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM, requestState }),
        );
        expect(runs('confirmDelete')).toBe(0);
      });

      it('state of tool A replayed on tool B → -32602', async () => {
        const round1 = await firstRound('confirmDelete', { target: 'db' });
        const outcome = await rawCall(
          running.mcpUrl,
          'plainTool',
          { target: 'db' },
          {
            capabilities: FORM,
            requestState: round1.requestState,
            inputResponses: { confirm: accept({ confirm: true }) },
          },
        );
        invalidParams(outcome, /another request/);
        expect(runs('plainTool')).toBe(0);
      });

      it('state of a tool replayed on the prompt of the same name and arguments → -32602', async () => {
        const round1 = await firstRound('confirmDelete', { target: 'db' });
        const outcome = await rawCall(
          running.mcpUrl,
          'confirmDelete',
          { target: 'db' },
          {
            method: 'prompts/get',
            capabilities: FORM,
            requestState: round1.requestState,
            inputResponses: { confirm: accept({ confirm: true }) },
          },
        );
        invalidParams(outcome, /another request/);
        expect(runs('prompt:confirmDelete')).toBe(0);
      });

      it.each([
        ['another value', { target: 'everything' }],
        ['an extra argument', { target: 'db', extra: 1 }],
        ['no arguments', undefined],
      ])('state replayed with different arguments (%s) → -32602', async (_label, args) => {
        const round1 = await firstRound('confirmDelete', { target: 'db' });
        const outcome = await rawCall(running.mcpUrl, 'confirmDelete', args, {
          capabilities: FORM,
          requestState: round1.requestState,
          inputResponses: { confirm: accept({ confirm: true }) },
        });
        // An argument the schema rejects may already fail validation (isError); otherwise the state is refused.
        if (outcome.result?.isError) expect(outcome.result.resultType).toBe('complete');
        else invalidParams(outcome, /another request/);
        expect(runs('confirmDelete')).toBe(0);
        expect(probe.deleted).not.toContain('everything');
      });

      it('the same arguments in another key order are the same request', async () => {
        const round1 = await firstRound('twoStep', { greeting: 'yo' });
        const outcome = await rawCall(
          running.mcpUrl,
          'twoStep',
          { greeting: 'yo' },
          {
            capabilities: FORM,
            requestState: round1.requestState,
            inputResponses: { name: accept({ name: 'Bo' }) },
          },
        );
        expect(inputRequired(outcome).inputRequests).toHaveProperty('colour');
      });

      it('state issued to one caller, replayed by another → -32602', async () => {
        const round1 = await firstRound('confirmDelete', { target: 'db' }, 'alice');
        for (const user of ['mallory', undefined]) {
          const outcome = await rawCall(
            running.mcpUrl,
            'confirmDelete',
            { target: 'db' },
            {
              capabilities: FORM,
              user,
              requestState: round1.requestState,
              inputResponses: { confirm: accept({ confirm: true }) },
            },
          );
          invalidParams(outcome, /another caller/);
        }
        expect(runs('confirmDelete')).toBe(0);
        const own = await rawCall(
          running.mcpUrl,
          'confirmDelete',
          { target: 'db' },
          {
            capabilities: FORM,
            user: 'alice',
            requestState: round1.requestState,
            inputResponses: { confirm: accept({ confirm: false }) },
          },
        );
        expect(completeText(own)).toBe('kept');
      });

      it('an anonymous state replayed by an authenticated caller → -32602', async () => {
        const round1 = await firstRound('confirmDelete', { target: 'db' });
        invalidParams(
          await rawCall(
            running.mcpUrl,
            'confirmDelete',
            { target: 'db' },
            {
              capabilities: FORM,
              user: 'alice',
              requestState: round1.requestState,
              inputResponses: { confirm: accept({ confirm: true }) },
            },
          ),
          /another caller/,
        );
      });

      it('an expired state → -32602', async () => {
        const shortLived = await startApp(adapter, { imports: [elicitationModule({ ttlMs: 50 })] });
        try {
          const shortProbe = shortLived.app.get(Probe);
          const round1 = inputRequired(
            await rawCall(shortLived.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM }),
          );
          shortProbe.runs.clear();
          await new Promise((resolve) => setTimeout(resolve, 100));
          invalidParams(
            await rawCall(
              shortLived.mcpUrl,
              'confirmDelete',
              { target: 'db' },
              {
                capabilities: FORM,
                requestState: round1.requestState,
                inputResponses: { confirm: accept({ confirm: true }) },
              },
            ),
            /expired/,
          );
          expect(shortProbe.runs.get('confirmDelete') ?? 0).toBe(0);
          // The same server issued it: a fresh state still works.
          const fresh = inputRequired(
            await rawCall(shortLived.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM }),
          );
          const done = await rawCall(
            shortLived.mcpUrl,
            'confirmDelete',
            { target: 'db' },
            {
              capabilities: FORM,
              requestState: fresh.requestState,
              inputResponses: { confirm: { action: 'cancel' } },
            },
          );
          expect(completeText(done)).toBe('cancelled');
        } finally {
          await shortLived.close();
        }
      });

      it('a state sealed by a server with another key → -32602', async () => {
        const other = await startApp(adapter, {
          imports: [elicitationModule({ keys: [Buffer.alloc(32, 9).toString('base64')] })],
        });
        try {
          const foreign = inputRequired(
            await rawCall(other.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM }),
          );
          invalidParams(
            await rawCall(
              running.mcpUrl,
              'confirmDelete',
              { target: 'db' },
              {
                capabilities: FORM,
                requestState: foreign.requestState,
                inputResponses: { confirm: accept({ confirm: true }) },
              },
            ),
            /requestState/,
          );
          expect(runs('confirmDelete')).toBe(0);
        } finally {
          await other.close();
        }
      });
    });

    it('a stale state (of an earlier round) does not skip a question', async () => {
      const round1 = inputRequired(await rawCall(running.mcpUrl, 'twoStep', {}, { capabilities: FORM }));
      // Round 1's state only admits the answer to "name"; an answer to "colour" sent with it is ignored.
      const outcome = await rawCall(
        running.mcpUrl,
        'twoStep',
        {},
        {
          capabilities: FORM,
          requestState: round1.requestState,
          inputResponses: { colour: accept({ colour: 'red' }) },
        },
      );
      expect(Object.keys(inputRequired(outcome).inputRequests!)).toEqual(['name']);
    });

    // spec 2026-07-28: basic/patterns/mrtr, "Error Handling"
    it('a retry with the state but no answers asks again', async () => {
      const round1 = inputRequired(
        await rawCall(running.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM }),
      );
      const again = inputRequired(
        await rawCall(
          running.mcpUrl,
          'confirmDelete',
          { target: 'db' },
          { capabilities: FORM, requestState: round1.requestState },
        ),
      );
      expect(Object.keys(again.inputRequests!)).toEqual(['confirm']);
      expect(probe.deleted).toEqual([]);
    });

    it('progress, then input_required, on one SSE stream', async () => {
      const response = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'progressThenAsk', arguments: {} },
        meta: requestMeta({ progressToken: 'ask', 'io.modelcontextprotocol/clientCapabilities': FORM }),
      });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const frames = sseDataFrames(response.text).map((data) => JSON.parse(data));
      for (const frame of frames) assertValidServerMessage(frame, 'tools/call');
      expect(frames.map((frame) => frame.method ?? frame.result?.resultType)).toEqual([
        'notifications/progress',
        'input_required',
      ]);
      // The official client follows the same flow on its own.
      const mcp = await client(FORM);
      mcp.setRequestHandler('elicitation/create', async () => accept({ confirm: true }));
      const seen: unknown[] = [];
      const result = await mcp.callTool(
        { name: 'progressThenAsk', arguments: {} },
        { onprogress: (p: unknown) => seen.push(p) },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'went ahead' }]);
      expect(seen).toContainEqual({ progress: 0.5, total: 1, message: 'prepared' });
    });

    it('a state the server issued is one it accepts back, whatever the size of the answers it carries', async () => {
      const round1 = inputRequired(await rawCall(running.mcpUrl, 'essay', {}, { capabilities: FORM }));
      const text = 'z'.repeat(300_000);
      const round2 = await rawCall(
        running.mcpUrl,
        'essay',
        {},
        {
          capabilities: FORM,
          requestState: round1.requestState,
          inputResponses: { essay: accept({ text }) },
        },
      );
      if (round2.error) {
        // Refusing the oversized answer up front would be fine too.
        expect(round2.error.code).toBe(-32602);
        return;
      }
      const state = inputRequired(round2).requestState!;
      const round3 = await rawCall(
        running.mcpUrl,
        'essay',
        {},
        {
          capabilities: FORM,
          requestState: state,
          inputResponses: { confirm: accept({ confirm: true }) },
        },
      );
      expect(round3.error).toBeUndefined();
      expect(completeText(round3)).toBe('submitted 300000 characters');
    });

    // spec 2026-07-28: basic/patterns/mrtr, "Error Handling"
    it('unrecognised extra entries in inputResponses are ignored', async () => {
      const round1 = inputRequired(
        await rawCall(running.mcpUrl, 'confirmDelete', { target: 'tmp' }, { capabilities: FORM }),
      );
      const done = await rawCall(
        running.mcpUrl,
        'confirmDelete',
        { target: 'tmp' },
        {
          capabilities: FORM,
          requestState: round1.requestState,
          inputResponses: { confirm: accept({ confirm: false }), unrelated: { anything: true } },
        },
      );
      expect(completeText(done)).toBe('kept');
    });

    describe('answers whose content breaks the form are asked again', () => {
      it.each<[string, unknown]>([
        ['a bad email', { email: 'not-an-email' }],
        ['a missing required field', {}],
        ['a wrong type', { email: 42 }],
        ['no content at all', undefined],
        ['content that is not an object', 'a@example.com'],
      ])('%s → input_required again for the same key, with a new state', async (_label, content) => {
        const round1 = inputRequired(await rawCall(running.mcpUrl, 'askEmail', {}, { capabilities: FORM }));
        const again = inputRequired(
          await rawCall(
            running.mcpUrl,
            'askEmail',
            {},
            {
              capabilities: FORM,
              requestState: round1.requestState,
              inputResponses: { email: content === undefined ? { action: 'accept' } : { action: 'accept', content } },
            },
          ),
        );
        expect(again.inputRequests).toEqual({
          email: {
            method: 'elicitation/create',
            params: { mode: 'form', message: 'Your email?', requestedSchema: EmailForm.requestedSchema },
          },
        });
        expect(again.requestState).not.toBe(round1.requestState);
        // The re-asked round completes normally.
        const done = await rawCall(
          running.mcpUrl,
          'askEmail',
          {},
          {
            capabilities: FORM,
            requestState: again.requestState,
            inputResponses: { email: accept({ email: 'ada@example.com' }) },
          },
        );
        expect(completeText(done)).toBe('email ada@example.com');
      });

      it('one bad answer of three re-asks only that one', async () => {
        const round1 = inputRequired(await rawCall(running.mcpUrl, 'survey', {}, { capabilities: FORM }));
        const round2 = inputRequired(
          await rawCall(
            running.mcpUrl,
            'survey',
            {},
            {
              capabilities: FORM,
              requestState: round1.requestState,
              inputResponses: {
                name: accept({ name: 'Ken' }),
                age: accept({ age: -5 }),
                confirm: accept({ confirm: true }),
              },
            },
          ),
        );
        expect(Object.keys(round2.inputRequests!)).toEqual(['age']);
        const done = await rawCall(
          running.mcpUrl,
          'survey',
          {},
          {
            capabilities: FORM,
            requestState: round2.requestState,
            inputResponses: { age: accept({ age: 50 }) },
          },
        );
        expect(completeText(done)).toBe('Ken is 50, share=true');
      });
    });

    describe('malformed answers are protocol errors (-32602)', () => {
      it.each<[string, unknown]>([
        ['inputResponses: null', null],
        ['inputResponses: an array', [{ action: 'accept' }]],
        ['inputResponses: a string', 'accept'],
        ['inputResponses: a number', 1],
      ])('%s (the handler never runs)', async (_label, inputResponses) => {
        const round1 = inputRequired(
          await rawCall(running.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM }),
        );
        probe.runs.clear();
        invalidParams(
          await rawCall(
            running.mcpUrl,
            'confirmDelete',
            { target: 'db' },
            { capabilities: FORM, requestState: round1.requestState, inputResponses },
          ),
          /inputResponses/,
        );
        invalidParams(
          await rawCall(running.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM, inputResponses }),
          /inputResponses/,
        );
        expect(runs('confirmDelete')).toBe(0);
      });

      it.each<[string, unknown]>([
        ['an answer that is a string', 'accept'],
        ['an answer that is null', null],
        ['an answer that is an array', [{ action: 'accept' }]],
        ['an unknown action', { action: 'maybe' }],
        ['no action', { content: { confirm: true } }],
        ['an action that is not a string', { action: 1 }],
      ])('%s', async (_label, answer) => {
        const round1 = inputRequired(
          await rawCall(running.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM }),
        );
        invalidParams(
          await rawCall(
            running.mcpUrl,
            'confirmDelete',
            { target: 'db' },
            {
              capabilities: FORM,
              requestState: round1.requestState,
              inputResponses: { confirm: answer },
            },
          ),
          /inputResponses/,
        );
        expect(probe.deleted).not.toContain('db');
      });
    });

    it('a handler that catches the input-required signal still yields input_required', async () => {
      const round1 = inputRequired(await rawCall(running.mcpUrl, 'swallow', {}, { capabilities: FORM }));
      expect(Object.keys(round1.inputRequests!)).toEqual(['confirm']);
      const done = await rawCall(
        running.mcpUrl,
        'swallow',
        {},
        {
          capabilities: FORM,
          requestState: round1.requestState,
          inputResponses: { confirm: accept({ confirm: true }) },
        },
      );
      expect(completeText(done)).toBe('proceed=true');
    });

    it('a client without elicitation: -32021, HTTP 400, data.requiredCapabilities', async () => {
      missingCapability(await rawCall(running.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: {} }), {
        elicitation: { form: {} },
      });
      missingCapability(await rawCall(running.mcpUrl, 'twoStep', {}, { capabilities: { sampling: {}, roots: {} } }), {
        elicitation: { form: {} },
      });
      missingCapability(
        await rawCall(running.mcpUrl, 'confirmDelete', { target: 'db' }, { method: 'prompts/get', capabilities: {} }),
        {
          elicitation: { form: {} },
        },
      );
      missingCapability(
        await rawCall(running.mcpUrl, 'secret://note', undefined, { method: 'resources/read', capabilities: {} }),
        {
          elicitation: { form: {} },
        },
      );
    });

    it('capabilities are per request: a retry that drops the capability is refused', async () => {
      const round1 = inputRequired(
        await rawCall(running.mcpUrl, 'confirmDelete', { target: 'db' }, { capabilities: FORM }),
      );
      missingCapability(
        await rawCall(
          running.mcpUrl,
          'confirmDelete',
          { target: 'db' },
          {
            capabilities: {},
            requestState: round1.requestState,
            inputResponses: { confirm: accept({ confirm: true }) },
          },
        ),
        { elicitation: { form: {} } },
      );
      expect(probe.deleted).not.toContain('db');
    });

    it('ctx.canElicit lets a handler fall back when the client cannot elicit', async () => {
      expect(completeText(await rawCall(running.mcpUrl, 'fallback', {}, { capabilities: {} }))).toBe(
        'no elicitation: used the safe default',
      );
      expect(
        completeText(await rawCall(running.mcpUrl, 'fallback', {}, { capabilities: { elicitation: { url: {} } } })),
      ).toBe('no elicitation: used the safe default');
      const round1 = inputRequired(await rawCall(running.mcpUrl, 'fallback', {}, { capabilities: FORM }));
      const done = await rawCall(
        running.mcpUrl,
        'fallback',
        {},
        {
          capabilities: FORM,
          requestState: round1.requestState,
          inputResponses: { confirm: accept({ confirm: true }) },
        },
      );
      expect(completeText(done)).toBe('risky option');
    });

    describe('sampling and roots are gated by capability', () => {
      it('sampling: -32021 without it; the request and its answer with it', async () => {
        missingCapability(await rawCall(running.mcpUrl, 'haiku', {}, { capabilities: FORM }), { sampling: {} });
        const round1 = inputRequired(await rawCall(running.mcpUrl, 'haiku', {}, { capabilities: { sampling: {} } }));
        expect(round1.inputRequests).toEqual({
          draft: {
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: 'text', text: 'A haiku about Nest' } }],
              maxTokens: 60,
            },
          },
        });
        const done = await rawCall(
          running.mcpUrl,
          'haiku',
          {},
          {
            capabilities: { sampling: {} },
            requestState: round1.requestState,
            inputResponses: {
              draft: { role: 'assistant', content: { type: 'text', text: 'Quiet providers' }, model: 'm1' },
            },
          },
        );
        expect(completeText(done)).toBe('m1: Quiet providers');
        invalidParams(
          await rawCall(
            running.mcpUrl,
            'haiku',
            {},
            {
              capabilities: { sampling: {} },
              requestState: round1.requestState,
              inputResponses: { draft: { role: 'assistant', content: { type: 'text', text: 'no model' } } },
            },
          ),
          /inputResponses/,
        );
      });

      it('sampling with tools needs sampling.tools', async () => {
        missingCapability(await rawCall(running.mcpUrl, 'samplingWithTools', {}, { capabilities: { sampling: {} } }), {
          sampling: { tools: {} },
        });
        const round1 = inputRequired(
          await rawCall(running.mcpUrl, 'samplingWithTools', {}, { capabilities: { sampling: { tools: {} } } }),
        );
        expect(round1.inputRequests!.plan.params).toMatchObject({
          tools: [{ name: 'lookup' }],
          toolChoice: { mode: 'auto' },
        });
      });

      it('roots: -32021 without it; roots/list (no params) and its answer with it', async () => {
        missingCapability(await rawCall(running.mcpUrl, 'listRoots', {}, { capabilities: FORM }), { roots: {} });
        const round1 = inputRequired(await rawCall(running.mcpUrl, 'listRoots', {}, { capabilities: { roots: {} } }));
        expect(round1.inputRequests).toEqual({ roots: { method: 'roots/list' } });
        const done = await rawCall(
          running.mcpUrl,
          'listRoots',
          {},
          {
            capabilities: { roots: {} },
            requestState: round1.requestState,
            inputResponses: { roots: { roots: [{ uri: 'file:///srv/app', name: 'app' }] } },
          },
        );
        expect(completeText(done)).toBe('file:///srv/app');
        invalidParams(
          await rawCall(
            running.mcpUrl,
            'listRoots',
            {},
            {
              capabilities: { roots: {} },
              requestState: round1.requestState,
              inputResponses: { roots: { roots: [{ uri: 'https://not-a-file.example' }] } },
            },
          ),
          /inputResponses/,
        );
      });
    });

    it('every input request this server sends fits the official schema (all capabilities declared)', async () => {
      for (const tool of [
        'twoStep',
        'survey',
        'connectAccount',
        'haiku',
        'samplingWithTools',
        'listRoots',
        'askEmail',
      ]) {
        inputRequired(await rawCall(running.mcpUrl, tool, {}, { capabilities: ALL_CAPS }));
      }
    });
  });

  it('everything the official clients received was valid 2026-07-28', async () => {
    expect(await assertAllValid(recorder)).toBeGreaterThan(0);
  });
});
