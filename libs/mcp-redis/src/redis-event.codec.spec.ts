import { describe, expect, it } from 'vitest';
import { decodeEvent, encodeEvent, MAX_EVENT_MESSAGE_LENGTH, MAX_EVENT_URI_LENGTH } from './redis-event.codec.js';

const wrap = (event: unknown, origin: unknown = 'replica-a') => JSON.stringify({ origin, event });

describe('the Redis event codec', () => {
  it('round-trips every event type, with and without an audience', () => {
    const events = [
      { type: 'toolsListChanged' },
      { type: 'promptsListChanged', audience: { principals: ['alice'] } },
      { type: 'resourcesListChanged' },
      // The events extension's catalog changed: listeners on other replicas are told too (#28).
      { type: 'eventsListChanged' },
      { type: 'resourceUpdated', uri: 'file:///a.txt', audience: { principals: [] } },
      { type: 'resync' },
    ] as const;
    for (const event of events) expect(decodeEvent(encodeEvent('o1', event))).toEqual({ origin: 'o1', event });
  });

  it('accepts the longest URI nest-mcp serves, percent-encoded characters included', () => {
    for (const uri of [
      `file:///${'a'.repeat(MAX_EVENT_URI_LENGTH - 8)}`,
      'file:///caf%C3%A9.txt',
      'urn:isbn:0451450523',
    ]) {
      expect(decodeEvent(wrap({ type: 'resourceUpdated', uri }))).toEqual({
        origin: 'replica-a',
        event: { type: 'resourceUpdated', uri },
      });
    }
  });

  it('rebuilds the event from its known fields only', () => {
    const decoded = decodeEvent(
      wrap({
        type: 'resourceUpdated',
        uri: 'config://app',
        extra: { big: true },
        audience: { principals: ['bob'], x: 1 },
      }),
    );
    expect(decoded).toEqual({
      origin: 'replica-a',
      event: { type: 'resourceUpdated', uri: 'config://app', audience: { principals: ['bob'] } },
    });
  });

  it.each([
    ['not JSON', 'hello'],
    ['JSON but not an object', '[1,2]'],
    ['no origin', JSON.stringify({ event: { type: 'toolsListChanged' } })],
    ['a numeric origin', wrap({ type: 'toolsListChanged' }, 7)],
    ['no event', JSON.stringify({ origin: 'x' })],
    ['an event that is an array', wrap([])],
    ['an unknown type', wrap({ type: 'everythingChanged' })],
    ['a type that is not a string', wrap({ type: 1 })],
    ['an inherited type name', wrap({ type: 'constructor' })],
    ['resourceUpdated without a uri', wrap({ type: 'resourceUpdated' })],
    ['resourceUpdated with a numeric uri', wrap({ type: 'resourceUpdated', uri: 42 })],
    ['resourceUpdated with an empty uri', wrap({ type: 'resourceUpdated', uri: '' })],
    [
      'resourceUpdated with a uri too long',
      wrap({ type: 'resourceUpdated', uri: `file:///${'a'.repeat(MAX_EVENT_URI_LENGTH)}` }),
    ],
    // The bus is a trust boundary: what McpPublisher would refuse (isResourceUri) is dropped when it arrives.
    [
      'resourceUpdated with an escape sequence in its uri',
      wrap({ type: 'resourceUpdated', uri: 'config://app\u001b]52;c;aGk=\u0007' }),
    ],
    ['resourceUpdated with a NUL in its uri', wrap({ type: 'resourceUpdated', uri: 'config://a\u0000pp' })],
    [
      'resourceUpdated with a newline in its uri',
      wrap({ type: 'resourceUpdated', uri: 'config://app\r\ndata: forged' }),
    ],
    ['resourceUpdated with a DEL in its uri', wrap({ type: 'resourceUpdated', uri: 'config://app\u007f' })],
    ['resourceUpdated with a space in its uri', wrap({ type: 'resourceUpdated', uri: 'config://my app' })],
    ['resourceUpdated with a uri without a scheme', wrap({ type: 'resourceUpdated', uri: '/etc/passwd' })],
    ['a null audience', wrap({ type: 'toolsListChanged', audience: null })],
    ['an audience without principals', wrap({ type: 'toolsListChanged', audience: {} })],
    ['principals that are a string', wrap({ type: 'toolsListChanged', audience: { principals: 'alice' } })],
    ['principals that are not strings', wrap({ type: 'toolsListChanged', audience: { principals: ['alice', 7] } })],
    ['a resync with an audience', wrap({ type: 'resync', audience: { principals: ['alice'] } })],
    ['a message too long', wrap({ type: 'toolsListChanged', pad: 'x'.repeat(MAX_EVENT_MESSAGE_LENGTH) })],
  ])('drops %s', (_label, message) => {
    expect(decodeEvent(message)).toBeUndefined();
  });

  it('drops what is not a string at all, and refuses to encode what cannot travel', () => {
    for (const message of [undefined, null, 42, Buffer.from('{}')]) expect(decodeEvent(message)).toBeUndefined();
    const cyclic: Record<string, unknown> = { type: 'toolsListChanged' };
    cyclic.self = cyclic;
    expect(encodeEvent('o', cyclic as never)).toBeUndefined();
    expect(encodeEvent('o', { type: 'resourceUpdated', uri: 'x'.repeat(MAX_EVENT_MESSAGE_LENGTH) })).toBeUndefined();
  });
});
