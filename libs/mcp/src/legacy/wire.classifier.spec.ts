import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from '../protocol/json-rpc-message.parser.js';
import { MetaKeys } from '../protocol/meta-keys.constants.js';
import { classifyStdioWire } from './wire.classifier.js';

const request = (method: string, params?: Record<string, unknown>): IncomingMessage => ({
  kind: 'request',
  message: { jsonrpc: '2.0', id: 1, method, params },
});
const notification = (method: string): IncomingMessage => ({
  kind: 'notification',
  message: { jsonrpc: '2.0', method },
});
const response: IncomingMessage = { kind: 'response', message: { jsonrpc: '2.0', id: 's-1', result: {} } };
const ENVELOPE = { _meta: { [MetaKeys.protocolVersion]: '2026-07-28' } };

describe('classifyStdioWire (one message at a time, on a process that may serve both wires)', () => {
  it('takes client responses, initialize and notifications/initialized for the 2025-11-25 wire, session or not', () => {
    for (const hasSession of [false, true]) {
      expect([
        classifyStdioWire(response, hasSession),
        classifyStdioWire(request('initialize'), hasSession),
        classifyStdioWire(notification('notifications/initialized'), hasSession),
      ]).toEqual(['legacy', 'legacy', 'legacy']);
    }
  });

  it('takes initialize for the handshake even when it carries the 2026 envelope (on HTTP the envelope decides first)', () => {
    expect(
      classifyStdioWire(request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, ...ENVELOPE }), false),
    ).toBe('legacy');
  });

  it('takes a request with the 2026 _meta envelope, and server/discover (the dual-era probe), for the 2026 wire, session or not', () => {
    for (const hasSession of [false, true]) {
      expect([
        classifyStdioWire(request('tools/call', { name: 'x', ...ENVELOPE }), hasSession),
        classifyStdioWire(request('server/discover'), hasSession),
      ]).toEqual(['modern', 'modern']);
    }
  });

  it('gives anything else to the session once initialize made one, and otherwise to the 2026 wire (which names the versions in its error)', () => {
    for (const message of [request('tools/list'), request('ping'), notification('notifications/cancelled')]) {
      expect([classifyStdioWire(message, true), classifyStdioWire(message, false)]).toEqual(['legacy', 'modern']);
    }
  });

  it('looks for the envelope key itself: a _meta without the protocol version is no envelope', () => {
    expect(classifyStdioWire(request('tools/list', { _meta: { progressToken: 1 } }), true)).toBe('legacy');
    expect(classifyStdioWire(request('tools/list', { _meta: 'not an object' }), true)).toBe('legacy');
  });
});
