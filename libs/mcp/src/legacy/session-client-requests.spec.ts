import { describe, expect, it } from 'vitest';
import { CallCancellation } from '../protocol/call-cancellation.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import { ResponseChannel, type ChannelMessage } from '../protocol/response-channel.js';
import { LegacySession } from './legacy-session.js';
import { SessionClientRequests } from './session-client-requests.js';

/** A call of a session, with what its SSE stream carried. */
function callOf(timeoutMs = 1_000) {
  const session = new LegacySession('2025-11-25', { elicitation: {} }, undefined, undefined);
  const channel = new ResponseChannel();
  const cancellation = new CallCancellation();
  const sent: ChannelMessage[] = [];
  channel.messages$.subscribe((message) => sent.push(message));
  return {
    session,
    channel,
    cancellation,
    sent,
    requests: new SessionClientRequests(session, channel, cancellation, timeoutMs),
  };
}

const ASK = { message: 'Deploy to prod?', requestedSchema: { type: 'object', properties: {} } };

describe('SessionClientRequests.request', () => {
  it("sends the request on the call's own stream under a session id, and resolves with the result the client POSTs back", async () => {
    const { session, sent, requests } = callOf();
    const pending = requests.request('elicitation/create', ASK);
    expect(sent).toEqual([
      { type: 'notification', message: { jsonrpc: '2.0', id: 's-1', method: 'elicitation/create', params: ASK } },
    ]);
    expect(session.deliverResponse({ jsonrpc: '2.0', id: 's-1', result: { action: 'accept', content: {} } })).toBe(
      true,
    );
    await expect(pending).resolves.toEqual({ action: 'accept', content: {} });
  });

  it('sends no params member when there are none, and numbers requests per session', async () => {
    const { session, sent, requests } = callOf();
    const first = requests.request('roots/list');
    const second = requests.request('roots/list');
    expect(sent.map((message) => (message as { message: unknown }).message)).toEqual([
      { jsonrpc: '2.0', id: 's-1', method: 'roots/list' },
      { jsonrpc: '2.0', id: 's-2', method: 'roots/list' },
    ]);
    session.deliverResponse({ jsonrpc: '2.0', id: 's-2', result: { roots: [] } });
    session.deliverResponse({ jsonrpc: '2.0', id: 's-1', result: { roots: [{ uri: 'file:///a' }] } });
    await expect(Promise.all([first, second])).resolves.toEqual([{ roots: [{ uri: 'file:///a' }] }, { roots: [] }]);
  });

  it("turns the client's error answer into an McpError with its code, message and data", async () => {
    const { session, requests } = callOf();
    const refused = requests.request('sampling/createMessage', {});
    session.deliverResponse({
      jsonrpc: '2.0',
      id: 's-1',
      error: { code: -1, message: 'User rejected sampling', data: { why: 'busy' } },
    });
    await expect(refused).rejects.toBeInstanceOf(McpError);
    await expect(refused).rejects.toMatchObject({ code: -1, message: 'User rejected sampling', data: { why: 'busy' } });
  });

  it('gives up after the timeout with -32603 naming the method; a late answer finds nothing waiting', async () => {
    const { session, requests } = callOf(20);
    const pending = requests.request('elicitation/create', ASK);
    await expect(pending).rejects.toMatchObject({
      code: McpErrorCode.InternalError,
      message: 'The client did not answer elicitation/create in time',
    });
    expect(session.deliverResponse({ jsonrpc: '2.0', id: 's-1', result: {} })).toBe(false);
  });

  it('gives up when the call is cancelled', async () => {
    const { cancellation, requests } = callOf();
    const pending = requests.request('elicitation/create', ASK);
    cancellation.abort(new Error('client went away'));
    await expect(pending).rejects.toMatchObject({
      code: McpErrorCode.InternalError,
      message: 'The call was cancelled',
    });
  });

  it('fails at once, keeping nothing pending, when the call already answered (timed out, client gone)', async () => {
    const { session, channel, requests } = callOf();
    // A rejection nobody handles would end a Node process that has no unhandledRejection handler (Nest installs none).
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      channel.respond({ jsonrpc: '2.0', id: 1, result: {} });
      await expect(requests.request('roots/list')).rejects.toMatchObject({
        code: McpErrorCode.InternalError,
        message: 'Internal error',
      });
      expect(session.deliverResponse({ jsonrpc: '2.0', id: 's-1', result: {} })).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it('fails with the reason when the session ends while it waits', async () => {
    const { session, requests } = callOf();
    const pending = requests.request('elicitation/create', ASK);
    session.close('The session was deleted');
    await expect(pending).rejects.toMatchObject({
      code: McpErrorCode.InternalError,
      message: 'The session was deleted',
    });
  });
});
