import { afterEach, describe, expect, it } from 'vitest';
import { resolvedOptions } from '../../../../test/support/resolved-options.factory.js';
import { thrown } from '../../../../test/support/thrown.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import type { McpError } from '../protocol/mcp.error.js';
import { InMemoryEventBus } from '../subscriptions/in-memory-event-bus.js';
import type { LegacySession } from './legacy-session.js';
import {
  MAX_SUBSCRIPTION_BYTES_PER_SESSION,
  SESSION_BASE_BYTES,
  STRING_ENTRY_BYTES,
} from './legacy-session.constants.js';
import { McpSessionStore } from './legacy-session.store.js';
import type { LegacyHandshake } from './legacy-wire.service.js';

const HANDSHAKE: LegacyHandshake = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'c', version: '1' },
};
const BASE = SESSION_BASE_BYTES + 2 * STRING_ENTRY_BYTES + 2;

let stores: McpSessionStore[] = [];
afterEach(() => {
  for (const store of stores) store.onModuleDestroy();
  stores = [];
});

function storeWith(options: Partial<McpModuleOptions>): McpSessionStore {
  const store = new McpSessionStore(resolvedOptions(options), new InMemoryEventBus());
  stores.push(store);
  return store;
}

function sessionOf(result: ReturnType<McpSessionStore['create']>): LegacySession {
  if (!('session' in result)) throw new Error(`refused: ${result.refused}`);
  return result.session;
}

describe('McpSessionStore caps', () => {
  it('caps sessions per principal and per address, and gives the slot back on delete', () => {
    const store = storeWith({ maxSessionsPerPrincipal: 1, maxSessionsPerAddress: 1 });
    const alice = sessionOf(store.create(HANDSHAKE, { principal: 'alice', address: '10.0.0.1' }));
    expect(store.create(HANDSHAKE, { principal: 'alice', address: '10.0.0.2' })).toEqual({ refused: 'principal' });
    sessionOf(store.create(HANDSHAKE, { address: '10.0.0.1' }));
    expect(store.create(HANDSHAKE, { address: '10.0.0.1' })).toEqual({ refused: 'address' });
    expect(alice.principal).toBe('alice');
    store.delete(alice.id);
    sessionOf(store.create(HANDSHAKE, { principal: 'alice', address: '10.0.0.3' }));
  });

  it('keeps the total cap', () => {
    const store = storeWith({ maxSessions: 1 });
    sessionOf(store.create(HANDSHAKE, { address: '10.0.0.1' }));
    expect(store.create(HANDSHAKE, { address: '10.0.0.2' })).toEqual({ refused: 'total' });
  });

  it('accounts the bytes each session keeps, refuses beyond maxSessionBytes, and releases them when a session ends', () => {
    const store = storeWith({ maxSessionBytes: 2 * BASE + 100 });
    const first = sessionOf(store.create(HANDSHAKE, { address: 'a' }));
    sessionOf(store.create(HANDSHAKE, { address: 'b' }));
    expect(store.heldBytes).toBe(2 * BASE);
    expect(store.create(HANDSHAKE, { address: 'c' })).toEqual({ refused: 'memory' });

    first.subscribe('res://12345');
    expect(store.heldBytes).toBe(2 * BASE + 11 + STRING_ENTRY_BYTES);
    const refusal = thrown<McpError>(() => first.subscribe('res://another-one'));
    expect(refusal.code).toBe(McpErrorCode.InternalError);
    expect(refusal.message).toContain('maxSessionBytes');
    expect([...first.subscriptions]).toEqual(['res://12345']);

    first.unsubscribe('res://12345');
    expect(store.heldBytes).toBe(2 * BASE);
    store.delete(first.id);
    expect(store.heldBytes).toBe(BASE);
    sessionOf(store.create(HANDSHAKE, { address: 'c' }));
  });

  it('releases slots and bytes on idle expiry and on shutdown', async () => {
    const store = storeWith({ maxSessionsPerAddress: 1, sessionIdleMs: 20 });
    sessionOf(store.create(HANDSHAKE, { address: 'a' }));
    expect(store.create(HANDSHAKE, { address: 'a' })).toEqual({ refused: 'address' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    sessionOf(store.create(HANDSHAKE, { address: 'a' }));
    expect(store.size).toBe(1);
    store.onModuleDestroy();
    expect([store.size, store.heldBytes]).toEqual([0, 0]);
  });
});

describe('LegacySession subscriptions', () => {
  it('are bounded in number (the 2026 listen filter bound) and in bytes, with -32602, and leave the session as it was', () => {
    const session = sessionOf(storeWith({}).create(HANDSHAKE, {}));
    for (let i = 0; i < 1000; i++) session.subscribe(`res://${i}`);
    session.subscribe('res://7');
    const tooMany = thrown<McpError>(() => session.subscribe('res://one-more'));
    expect([tooMany.code, tooMany.httpStatus]).toEqual([McpErrorCode.InvalidParams, 200]);
    expect(tooMany.message).toContain('1000');
    expect(session.subscriptions.size).toBe(1000);

    const other = sessionOf(storeWith({}).create(HANDSHAKE, {}));
    const long = 'x'.repeat(8000);
    let count = 0;
    const refusal = thrown<McpError>(() => {
      for (;;) other.subscribe(`res://${count++}/${long}`);
    });
    expect(refusal.code).toBe(McpErrorCode.InvalidParams);
    expect(refusal.message).toContain(String(MAX_SUBSCRIPTION_BYTES_PER_SESSION));
    expect(other.subscriptions.size).toBe(count - 1);
  });

  it('keeps nothing more once closed', () => {
    const store = storeWith({});
    const session = sessionOf(store.create(HANDSHAKE, {}));
    store.delete(session.id);
    session.subscribe('res://late');
    expect([session.subscriptions.size, store.heldBytes]).toEqual([0, 0]);
  });
});

describe('McpSessionStore session ids', () => {
  it('starts every id with the sessionRoute and a dot, and finds the session by it', () => {
    const store = storeWith({ sessionRoute: 'pod-7' });
    const session = sessionOf(store.create(HANDSHAKE, { address: '10.0.0.1' }));
    expect(session.id).toMatch(/^pod-7\.[A-Za-z0-9_-]{32}$/);
    expect(store.get(session.id, undefined)).toBe(session);
    expect(sessionOf(storeWith({}).create(HANDSHAKE, { address: '10.0.0.1' })).id).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('refuses a sessionRoute a balancer could not match safely', () => {
    for (const sessionRoute of ['', 'a.b', 'x'.repeat(64), 'r 1', 'r/1']) {
      expect(() => resolvedOptions({ sessionRoute }), sessionRoute).toThrow(/"sessionRoute" must be 1 to 63 letters/);
    }
  });
});
