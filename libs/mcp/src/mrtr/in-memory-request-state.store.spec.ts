import { describe, expect, it } from 'vitest';
import { McpError } from '../protocol/mcp.error.js';
import { InMemoryRequestStateStore } from './in-memory-request-state.store.js';

/** A store on a clock the test moves. */
function storeAt(start: number, maxEntries?: number) {
  const clock = { now: start };
  const store = new InMemoryRequestStateStore({ maxEntries, now: () => clock.now });
  return { store, clock };
}

describe('InMemoryRequestStateStore', () => {
  it('accepts an id once; the same id again is refused, another id is accepted', () => {
    const { store } = storeAt(1_000);
    expect(store.consume('a', 61_000)).toBe(true);
    expect(store.consume('a', 61_000)).toBe(false);
    expect(store.consume('a', 61_000)).toBe(false);
    expect(store.consume('b', 61_000)).toBe(true);
    expect(store.size).toBe(2);
  });

  it('forgets an id once its state expired (the state is refused as expired by then anyway)', () => {
    const { store, clock } = storeAt(0);
    store.consume('a', 10_000);
    store.consume('b', 20_000);
    clock.now = 10_001;
    store.consume('c', 40_000);
    expect(store.size).toBe(2); // a is gone
    clock.now = 40_001;
    store.consume('d', 80_000);
    expect(store.size).toBe(1);
  });

  it('when full of live ids, refuses the next one with 503 / -32603 and a Retry-After until the oldest expires', () => {
    const { store, clock } = storeAt(0, 3);
    store.consume('a', 30_000);
    store.consume('b', 31_000);
    store.consume('c', 32_000);
    let refusal: unknown;
    try {
      store.consume('d', 35_000);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(McpError);
    expect(refusal).toMatchObject({ code: -32603, httpStatus: 503, data: { retryAfterSeconds: 30 } });
    expect((refusal as McpError).message).toBe(
      'Too many multi-round calls in progress: the single-use requestState store holds 3 states; retry later',
    );
    // Nothing was forgotten early: every id still refuses a replay.
    for (const id of ['a', 'b', 'c']) expect(store.consume(id, 40_000)).toBe(false);
    clock.now = 30_001;
    expect(store.consume('d', 35_000)).toBe(true);
    expect(store.consume('b', 40_000)).toBe(false);
  });

  it('stays bounded under a flood of fresh ids: never more than maxEntries, however many are offered', () => {
    const { store, clock } = storeAt(0, 1_000);
    let accepted = 0;
    let refused = 0;
    let largest = 0;
    for (let index = 0; index < 50_000; index++) {
      clock.now = index; // one id per millisecond, each valid for 5 s
      try {
        if (store.consume(`id-${index}`, index + 5_000)) accepted++;
      } catch {
        refused++;
      }
      largest = Math.max(largest, store.size);
    }
    expect(largest).toBe(1_000);
    expect(accepted + refused).toBe(50_000);
    expect(refused).toBeGreaterThan(0);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxEntries %s at construction', (maxEntries) => {
    expect(() => new InMemoryRequestStateStore({ maxEntries })).toThrow(/maxEntries must be a positive whole number/);
  });

  it('caps what one caller holds (429 / -32603 with a Retry-After) while other callers go on; the slot returns on expiry', () => {
    const clock = { now: 0 };
    const store = new InMemoryRequestStateStore({ maxEntries: 100, maxEntriesPerCaller: 2, now: () => clock.now });
    expect(store.consume('a1', 10_000, 'p:alice')).toBe(true);
    expect(store.consume('a2', 20_000, 'p:alice')).toBe(true);
    expect(() => store.consume('a3', 30_000, 'p:alice')).toThrow(
      expect.objectContaining({ code: -32603, httpStatus: 429, data: { retryAfterSeconds: 10 } }),
    );
    expect(store.consume('b1', 30_000, 'p:bob')).toBe(true);
    expect(store.consume('x1', 30_000)).toBe(true); // no caller known: only the total cap applies
    clock.now = 10_001;
    expect(store.consume('a3', 30_000, 'p:alice')).toBe(true);
    expect(store.consume('a1', 30_000, 'p:bob')).toBe(true); // forgotten once expired (the state is refused as expired anyway)
  });
});
