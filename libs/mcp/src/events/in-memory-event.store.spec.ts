import { describe, expect, it } from 'vitest';
import type { McpStoredEvent } from '../protocol/event-store.interface.js';
import { InMemoryEventStore } from './in-memory-event.store.js';

const retention = { windowMs: 60_000, maxEvents: 3 };
const event = (eventId: string, appendedAt = Date.now()): McpStoredEvent => ({
  eventId,
  name: 'thing',
  timestamp: new Date().toISOString(),
  data: {},
  appendedAt,
});

describe('InMemoryEventStore', () => {
  it('reads after a position, inclusive or not, in order, with positions that compare as strings', async () => {
    const store = new InMemoryEventStore();
    const head = await store.head('thing');
    const first = (await store.append(event('a'), retention))!;
    const second = (await store.append(event('b'), retention))!;
    expect(first < second && head < first).toBe(true);
    const all = await store.read('thing', { position: head, inclusive: false }, { limit: 10, retention });
    expect(all.events.map((logged) => logged.event.eventId)).toEqual(['a', 'b']);
    expect(all).toMatchObject({ truncated: false, more: false, next: { position: second, inclusive: false } });
    const at = await store.read('thing', { position: second, inclusive: true }, { limit: 10, retention });
    expect(at.events.map((logged) => logged.event.eventId)).toEqual(['b']);
    const limited = await store.read('thing', { position: head, inclusive: false }, { limit: 1, retention });
    expect(limited).toMatchObject({ more: true, next: { position: first } });
  });

  it('keeps at most maxEvents: a position before them resumes at the oldest kept, truncated', async () => {
    const store = new InMemoryEventStore();
    const head = await store.head('thing');
    for (const id of ['a', 'b', 'c', 'd', 'e']) await store.append(event(id), retention);
    const read = await store.read('thing', { position: head, inclusive: false }, { limit: 10, retention });
    expect(read.truncated).toBe(true);
    expect(read.events.map((logged) => logged.event.eventId)).toEqual(['c', 'd', 'e']);
  });

  it('a position of another store (a restart) is truncated, resumed at the oldest kept; notBefore skips and truncates', async () => {
    const before = new InMemoryEventStore();
    const stale = await before.head('thing');
    const store = new InMemoryEventStore();
    await store.append(event('old', Date.now() - 30_000), retention);
    await store.append(event('new'), retention);
    const foreign = await store.read('thing', { position: stale, inclusive: false }, { limit: 10, retention });
    expect(foreign).toMatchObject({ truncated: true });
    expect(foreign.events.map((logged) => logged.event.eventId)).toEqual(['old', 'new']);
    const head = `${(await store.head('thing')).split(':')[0]}:${'0'.repeat(16)}`;
    const recent = await store.read(
      'thing',
      { position: head, inclusive: false },
      { limit: 10, notBefore: Date.now() - 10_000, retention },
    );
    expect(recent.truncated).toBe(true);
    expect(recent.events.map((logged) => logged.event.eventId)).toEqual(['new']);
  });

  it('a type without replay keeps nothing, but subscribers hear of it with position null', async () => {
    const store = new InMemoryEventStore();
    const heard: Array<string | null> = [];
    store.subscribe((logged) => heard.push(logged.position));
    expect(await store.append(event('live'), undefined)).toBeNull();
    expect(heard).toEqual([null]);
  });
});
