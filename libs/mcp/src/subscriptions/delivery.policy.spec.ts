import { describe, expect, it } from 'vitest';
import { mayDeliver } from './delivery.policy.js';
import type { McpChangeEvent } from '../protocol/mcp-event.interface.js';

const alice = { principal: 'alice' };
const bob = { principal: 'bob' };
const anonymous = {};

const update = (uri: string, principals?: string[]): McpChangeEvent =>
  principals ? { type: 'resourceUpdated', uri, audience: { principals } } : { type: 'resourceUpdated', uri };

describe('mayDeliver', () => {
  it('an event without an audience reaches every listener, anonymous ones included', () => {
    for (const listener of [alice, bob, anonymous])
      expect(mayDeliver(listener, update('users://a'), undefined)).toBe(true);
    expect(mayDeliver(anonymous, { type: 'toolsListChanged' }, undefined)).toBe(true);
  });

  it('an event with an audience reaches only the principals it lists; never an anonymous listener', () => {
    const event = update('users://alice', ['alice']);
    expect(mayDeliver(alice, event, undefined)).toBe(true);
    expect(mayDeliver(bob, event, undefined)).toBe(false);
    expect(mayDeliver(anonymous, event, undefined)).toBe(false);
    expect(mayDeliver(alice, { type: 'promptsListChanged', audience: { principals: ['bob'] } }, undefined)).toBe(false);
  });

  it('an empty or malformed audience (as from a shared bus) reaches nobody', () => {
    expect(mayDeliver(alice, update('users://x', []), undefined)).toBe(false);
    for (const audience of [null, {}, { principals: 'alice' }, { principals: null }]) {
      const event = { type: 'toolsListChanged', audience } as unknown as McpChangeEvent;
      expect(mayDeliver(alice, event, undefined), JSON.stringify(audience)).toBe(false);
    }
  });

  it('a resync (the bus may have missed events) reaches every listener, anonymous ones included, without asking the hook', () => {
    const asked: string[] = [];
    const refuseAll = (_listener: { principal?: string }, event: McpChangeEvent) => (asked.push(event.type), false);
    for (const listener of [alice, bob, anonymous])
      expect(mayDeliver(listener, { type: 'resync' }, refuseAll)).toBe(true);
    expect(asked).toEqual([]);
  });

  it('the hook runs after the audience and may only refuse', () => {
    const asked: string[] = [];
    const hook = (listener: { principal?: string }, event: McpChangeEvent) => {
      asked.push(`${listener.principal} ${event.type}`);
      return listener.principal !== 'bob';
    };
    expect(mayDeliver(alice, update('users://x'), hook)).toBe(true);
    expect(mayDeliver(bob, update('users://x'), hook)).toBe(false);
    // Excluded by the audience: the hook is not asked, and cannot let it through.
    expect(mayDeliver(bob, update('users://x', ['alice']), () => true)).toBe(false);
    expect(mayDeliver(bob, update('users://x', ['alice']), hook)).toBe(false);
    expect(asked).toEqual(['alice resourceUpdated', 'bob resourceUpdated']);
  });

  it('fails closed: a hook that throws, answers with a Promise or with anything but true refuses', () => {
    expect(
      mayDeliver(alice, update('users://x'), () => {
        throw new Error('down');
      }),
    ).toBe(false);
    expect(mayDeliver(alice, update('users://x'), (() => Promise.resolve(true)) as never)).toBe(false);
    for (const verdict of [1, 'yes', {}, undefined, null]) {
      expect(mayDeliver(alice, update('users://x'), (() => verdict) as never), String(verdict)).toBe(false);
    }
  });
});
