import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BookForm, handlerStateModule, NoteForm, RoomHolds } from '../fixtures/handler-state.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';

/**
 * Handler-owned state across input rounds (issue #19, item 2), through the official client on both adapters: the state
 * a handler attaches to a round comes back sealed with the retry, survives later rounds, cannot be read or altered by
 * the client, and what cannot travel (too large, not JSON) is refused with a clear error before anything is sealed.
 */

const FORM = { elicitation: { form: {} } };
const manual = { allowInputRequired: true } as never;

interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>;
  requestState: string;
}

/** Flips one bit of the sealed bytes (in the middle: the ciphertext). */
function tamper(state: string): string {
  const [prefix, body] = state.split('.');
  const bytes = Buffer.from(body, 'base64url');
  bytes[Math.floor(bytes.length / 2)] ^= 0x01;
  return `${prefix}.${bytes.toString('base64url')}`;
}

/** A fetch that alters the `requestState` of every retry the official client sends. */
const tamperingFetch: typeof fetch = async (input, init) => {
  if (typeof init?.body === 'string' && init.body.includes('"requestState"')) {
    const message = JSON.parse(init.body) as { params: { requestState: string } };
    message.params.requestState = tamper(message.params.requestState);
    return fetch(input, { ...init, body: JSON.stringify(message) });
  }
  return fetch(input, init);
};

describe.each(ADAPTERS)('handler state across input rounds (%s)', (adapter) => {
  let running: RunningApp;
  let rooms: RoomHolds;
  const clients: Client[] = [];

  async function client(options: { fetch?: typeof fetch } = {}): Promise<Client> {
    const connected = await connectClient(running.mcpUrl, { capabilities: FORM, ...options });
    clients.push(connected);
    return connected;
  }

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [handlerStateModule()] });
    rooms = running.app.get(RoomHolds);
  });
  afterEach(() => {
    rooms.held.length = 0;
    rooms.released.length = 0;
  });
  afterAll(async () => {
    for (const connected of clients) await connected.close();
    await running?.close();
  });

  it('the state attached in round 1 survives two more rounds: the side effect of round 1 runs once', async () => {
    const mcp = await client();
    const asked: string[] = [];
    mcp.setRequestHandler('elicitation/create', async (request) => {
      const { message, requestedSchema } = request.params as { message: string; requestedSchema: unknown };
      asked.push(message);
      const booking = message === 'Book blue-room?';
      expect(requestedSchema).toEqual(booking ? BookForm.requestedSchema : NoteForm.requestedSchema);
      const content: Record<string, string | boolean> = booking ? { confirm: true } : { note: 'late arrival' };
      return { action: 'accept', content };
    });
    const result = await mcp.callTool({ name: 'book_room', arguments: { room: 'blue-room' } });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'Booked blue-room on hold-blue-room-1 (late arrival).' }]);
    expect(asked).toEqual(['Book blue-room?', 'A note for the front desk?']);
    // Three rounds ran; only the first took a hold, the others read its id from the state.
    expect(rooms.held).toEqual(['hold-blue-room-1']);
  });

  it('ctx.requestState = … carries a value the next round reads, and each round may replace it', async () => {
    const mcp = await client();
    mcp.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { note: 'ok' } }));
    const result = await mcp.callTool({ name: 'wizard', arguments: {} });
    // Round 3 reads what round 2 set, which extended what round 1 set.
    expect(result.content).toEqual([{ type: 'text', text: 'trail: round 1 > round 2' }]);
  });

  it('the state is sealed: the client cannot read it, and each round carries a new token', async () => {
    const mcp = await client();
    const round1 = (await mcp.callTool(
      { name: 'book_room', arguments: { room: 'red-room' } },
      manual,
    )) as unknown as InputRequiredResult;
    expect(round1.resultType).toBe('input_required');
    expect(Object.keys(round1.inputRequests)).toEqual(['confirm']);
    const sealed = Buffer.from(round1.requestState.split('.')[1], 'base64url');
    expect(sealed.includes('hold-red-room-1')).toBe(false);
    expect(sealed.includes('holdId')).toBe(false);

    const round2 = (await mcp.callTool(
      {
        name: 'book_room',
        arguments: { room: 'red-room' },
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
        requestState: round1.requestState,
      } as never,
      manual,
    )) as unknown as InputRequiredResult;
    expect(Object.keys(round2.inputRequests)).toEqual(['note']);
    expect(round2.requestState).not.toBe(round1.requestState);

    const round3 = await mcp.callTool(
      {
        name: 'book_room',
        arguments: { room: 'red-room' },
        inputResponses: { note: { action: 'decline' } },
        requestState: round2.requestState,
      } as never,
      manual,
    );
    expect(round3.content).toEqual([{ type: 'text', text: 'Booked red-room on hold-red-room-1.' }]);
    expect(rooms.held).toEqual(['hold-red-room-1']);
  });

  it('a tampered state is refused with -32602 before the handler runs again', async () => {
    const mcp = await client({ fetch: tamperingFetch });
    mcp.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
    await expect(mcp.callTool({ name: 'book_room', arguments: { room: 'green-room' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Invalid requestState: integrity check failed/),
    });
    // Round 1 ran and took its hold; the tampered retry never reached the handler (it would have taken a second one).
    expect(rooms.held).toEqual(['hold-green-room-1']);
    expect(rooms.released).toEqual([]);
  });

  it('a state too large to carry fails the call with the generic tool error; nothing is asked, nothing sealed', async () => {
    const mcp = await client();
    let asked = 0;
    mcp.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'accept', content: { confirm: true } };
    });
    const result = await mcp.callTool({ name: 'oversized_state', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'Tool "oversized_state" failed with an internal error' }]);
    expect(asked).toBe(0);

    // Without auto-fulfilment too: the round ends with the error result, not with input_required and a state.
    const raw = (await mcp.callTool({ name: 'oversized_state', arguments: {} }, manual)) as unknown as Record<
      string,
      unknown
    >;
    expect(raw.isError).toBe(true);
    expect(raw).not.toHaveProperty('inputRequests');
    expect(raw).not.toHaveProperty('requestState');
  });

  it('says why a state cannot travel: its size in bytes against the limit, or the value that is not JSON', async () => {
    const mcp = await client();
    const result = await mcp.callTool({ name: 'state_limits', arguments: {} });
    const lines = (result.content as Array<{ text: string }>)[0].text.split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^too large: RangeError: requestState is 18011 bytes of JSON, more than the 16384 a round may carry: keep references/,
      ),
      'a Date: TypeError: requestState.at is a Date; only plain JSON objects travel',
      'a function: TypeError: requestState.callback is a function, which JSON cannot carry',
      'not finite: TypeError: requestState[1] is NaN, which JSON cannot carry',
    ]);
  });
});
