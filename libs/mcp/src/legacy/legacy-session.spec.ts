import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallCancellation } from '../protocol/call-cancellation.js';
import type { McpChangeEvent } from '../protocol/mcp-event.interface.js';
import { ResponseChannel, type ChannelMessage } from '../protocol/response-channel.js';
import { LegacySession } from './legacy-session.js';
import { SessionMemoryBudget } from './session-memory.budget.js';

/** An initialized session of `principal` with its GET stream open, and what reached that stream. */
function listening(principal?: string): { session: LegacySession; sent: ChannelMessage[]; stream: ResponseChannel } {
  const session = new LegacySession('2025-11-25', {}, { name: 'client', version: '1' }, principal);
  session.initialized = true;
  const stream = new ResponseChannel();
  const sent: ChannelMessage[] = [];
  stream.messages$.subscribe((message) => sent.push(message));
  session.attachStream(stream);
  return { session, sent, stream };
}

const methodsOf = (sent: ChannelMessage[]) =>
  sent.map((message) => (message.type === 'notification' ? message.message : message.type));

afterEach(() => {
  vi.useRealTimers();
});

describe('LegacySession: identity and activity', () => {
  it('has a fresh unguessable id (192 random bits, visible ASCII) and keeps what initialize negotiated', () => {
    const session = new LegacySession('2025-06-18', { roots: {} }, { name: 'c', version: '2' }, 'alice');
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new LegacySession('2025-06-18', {}, undefined, undefined).id).not.toBe(session.id);
    expect([session.protocolVersion, session.capabilities, session.clientInfo, session.principal]).toEqual([
      '2025-06-18',
      { roots: {} },
      { name: 'c', version: '2' },
      'alice',
    ]);
    expect(session.initialized).toBe(false);
  });

  it('records its last activity at creation and on every touch (the store expires it from there)', () => {
    vi.useFakeTimers({ now: 1_000 });
    const session = new LegacySession('2025-11-25', {}, undefined, undefined);
    expect(session.lastActivity).toBe(1_000);
    vi.setSystemTime(61_000);
    session.touch();
    expect(session.lastActivity).toBe(61_000);
  });
});

describe('LegacySession: the standalone GET stream', () => {
  it('holds one open stream at a time; a finished or detached one makes room', () => {
    const session = new LegacySession('2025-11-25', {}, undefined, undefined);
    const first = new ResponseChannel();
    const second = new ResponseChannel();
    expect(session.hasOpenStream).toBe(false);
    expect(session.attachStream(first)).toBe(true);
    expect([session.hasOpenStream, session.attachStream(second)]).toEqual([true, false]);
    first.abandon();
    expect([session.hasOpenStream, session.attachStream(second)]).toEqual([false, true]);
    session.detachStream(first);
    expect(session.hasOpenStream).toBe(true);
    session.detachStream(second);
    expect(session.hasOpenStream).toBe(false);
  });

  it('sends session notifications on it, and reports false when none is open', () => {
    const { session, sent, stream } = listening();
    const notification = {
      jsonrpc: '2.0' as const,
      method: 'notifications/message',
      params: { level: 'info', data: 'x' },
    };
    expect(session.sendOnStream(notification)).toBe(true);
    expect(methodsOf(sent)).toEqual([notification]);
    session.detachStream(stream);
    expect(session.sendOnStream(notification)).toBe(false);
  });
});

describe('LegacySession.deliverChange', () => {
  it('tells an initialized session about every list change, untagged, without opting in', () => {
    const { session, sent } = listening();
    for (const type of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const)
      expect(session.deliverChange({ type })).toBe(true);
    expect(methodsOf(sent)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/resources/list_changed' },
    ]);
  });

  it('tells about a resource update only for a subscribed URI or one below it', () => {
    const { session, sent } = listening();
    session.subscribe('file:///project/src');
    const updated = (uri: string) => session.deliverChange({ type: 'resourceUpdated', uri });
    expect([
      updated('file:///project/src'),
      updated('file:///project/src/main.ts'),
      updated('file:///project/srcs'),
      updated('file:///other'),
    ]).toEqual([true, true, false, false]);
    expect(methodsOf(sent)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///project/src' } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///project/src/main.ts' } },
    ]);
    session.unsubscribe('file:///project/src');
    expect(updated('file:///project/src')).toBe(false);
  });

  it("reaches only the principals of an event's audience: never an anonymous session", () => {
    const forAlice: McpChangeEvent = { type: 'toolsListChanged', audience: { principals: ['alice'] } };
    expect(listening('alice').session.deliverChange(forAlice)).toBe(true);
    expect(listening('bob').session.deliverChange(forAlice)).toBe(false);
    expect(listening(undefined).session.deliverChange(forAlice)).toBe(false);
    expect(listening('alice').session.deliverChange({ type: 'toolsListChanged', audience: { principals: [] } })).toBe(
      false,
    );
  });

  it('asks the authorizeDelivery hook with the session principal, and delivers only on true', () => {
    const asked: unknown[] = [];
    const authorize = (listener: { principal?: string }, event: McpChangeEvent) => (
      asked.push([listener, event.type]), listener.principal === 'alice'
    );
    expect(listening('alice').session.deliverChange({ type: 'promptsListChanged' }, authorize)).toBe(true);
    expect(listening('bob').session.deliverChange({ type: 'promptsListChanged' }, authorize)).toBe(false);
    expect(asked).toEqual([
      [{ principal: 'alice' }, 'promptsListChanged'],
      [{ principal: 'bob' }, 'promptsListChanged'],
    ]);
  });

  it('sends nothing before notifications/initialized, or without an open stream', () => {
    const { session, sent, stream } = listening();
    session.initialized = false;
    expect(session.deliverChange({ type: 'toolsListChanged' })).toBe(false);
    session.initialized = true;
    session.detachStream(stream);
    expect(session.deliverChange({ type: 'toolsListChanged' })).toBe(false);
    expect(sent).toEqual([]);
  });
});

describe('LegacySession: calls in flight and server→client requests', () => {
  it('aborts a tracked call on notifications/cancelled, with the reason given; ignores unknown, finished and malformed ids', () => {
    const session = new LegacySession('2025-11-25', {}, undefined, undefined);
    const call = new CallCancellation();
    const other = new CallCancellation();
    session.trackCall(7, call);
    session.trackCall('x', other);
    session.cancelCall({ id: 7 }, 'why');
    session.cancelCall(8, 'why');
    session.untrackCall('x');
    session.cancelCall('x', 'why');
    expect([call.aborted, other.aborted]).toEqual([false, false]);
    session.cancelCall(7, 42);
    expect((call.signal.reason as Error).message).toBe('Cancelled by the client');
  });

  it('numbers server→client requests s-1, s-2… and resolves each with the response of the same id, once', async () => {
    const session = new LegacySession('2025-11-25', {}, undefined, undefined);
    const first = session.expectResponse();
    const second = session.expectResponse();
    expect([first.id, second.id]).toEqual(['s-1', 's-2']);
    const answer = { jsonrpc: '2.0' as const, id: 's-2', result: { action: 'accept' } };
    expect(session.deliverResponse(answer)).toBe(true);
    expect(session.deliverResponse(answer)).toBe(false);
    expect(session.deliverResponse({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
    await expect(second.response).resolves.toBe(answer);
    first.cancel(new Error('timed out'));
    await expect(first.response).rejects.toThrow('timed out');
    expect(session.deliverResponse({ jsonrpc: '2.0', id: 's-1', result: {} })).toBe(false);
  });

  it('on close: aborts its calls, fails the requests still waiting, ends the GET stream and gives its bytes back once', async () => {
    const budget = new SessionMemoryBudget(1 << 20);
    const base = LegacySession.baseBytes(undefined);
    budget.tryReserve(base);
    const session = new LegacySession('2025-11-25', {}, undefined, 'alice', budget);
    const stream = new ResponseChannel();
    session.attachStream(stream);
    const call = new CallCancellation();
    session.trackCall(1, call);
    session.subscribe('docs://a');
    const waiting = session.expectResponse();

    session.close('The session ended');
    session.close('The session ended');
    expect([call.aborted, (call.signal.reason as Error).message, stream.isFinished, budget.held]).toEqual([
      true,
      'The session ended',
      true,
      0,
    ]);
    await expect(waiting.response).rejects.toThrow('The session ended');
  });
});
