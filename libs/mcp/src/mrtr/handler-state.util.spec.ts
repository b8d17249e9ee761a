import { describe, expect, it } from 'vitest';
import { checkHandlerState, MAX_HANDLER_STATE_BYTES } from './handler-state.util.js';

describe('checkHandlerState', () => {
  it('accepts plain JSON up to the limit, counted in UTF-8 bytes', () => {
    const fits = { s: 'x'.repeat(MAX_HANDLER_STATE_BYTES - 8) }; // {"s":"…"} adds 8 bytes
    expect(checkHandlerState(fits)).toBe(fits);
    expect(() => checkHandlerState({ s: 'x'.repeat(MAX_HANDLER_STATE_BYTES - 7) })).toThrow(RangeError);
    expect(() => checkHandlerState({ s: 'é'.repeat(MAX_HANDLER_STATE_BYTES / 2) })).toThrow(
      /bytes of JSON, more than the 16384/,
    );
    expect(checkHandlerState([1, 'two', true, null, { three: [3] }])).toEqual([1, 'two', true, null, { three: [3] }]);
    expect(checkHandlerState(Object.assign(Object.create(null), { bare: 1 }))).toEqual({ bare: 1 });
  });

  it('undefined clears the state; a property set to undefined is left out, as JSON does', () => {
    expect(checkHandlerState(undefined)).toBeUndefined();
    expect(checkHandlerState({ cursor: undefined, page: 2 })).toEqual({ cursor: undefined, page: 2 });
    expect(() => checkHandlerState([undefined])).toThrow('requestState[0] is undefined, which JSON cannot carry');
  });

  it('refuses what JSON cannot carry, naming where it is', () => {
    expect(() => checkHandlerState({ at: new Map() })).toThrow(
      'requestState.at is a Map; only plain JSON objects travel',
    );
    expect(() => checkHandlerState({ n: 10n })).toThrow('requestState.n is a bigint, which JSON cannot carry');
    expect(() => checkHandlerState({ list: [Infinity] })).toThrow(
      'requestState.list[0] is Infinity, which JSON cannot carry',
    );
    expect(() => checkHandlerState(Symbol('s'))).toThrow(TypeError);
  });

  it('stops at a cycle instead of overflowing the stack', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => checkHandlerState(loop)).toThrow(/nested deeper than 32 levels \(or refers to itself\)/);
  });
});
