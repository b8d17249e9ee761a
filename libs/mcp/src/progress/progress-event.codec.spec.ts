import { describe, expect, it } from 'vitest';
import { createProgressEvent, formatProgressEvent, parseProgressLine } from './progress-event.codec.js';

const NOW = new Date('2026-11-29T12:00:00.000Z');
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('ProgressEvent codec', () => {
  it('stamps a report with the time and the trace ids, keys in contract order', () => {
    const event = createProgressEvent({ message: 'm', total: 10, progress: 3 }, { traceparent: TRACEPARENT, now: NOW });
    expect(Object.keys(event)).toEqual(['type', 'progress', 'total', 'message', 'timestamp', 'traceId', 'spanId']);
    expect(event).toEqual({
      type: 'progress',
      progress: 3,
      total: 10,
      message: 'm',
      timestamp: '2026-11-29T12:00:00.000Z',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
    });
  });

  it('leaves optional keys out (never null), and ignores an invalid traceparent', () => {
    const event = createProgressEvent({ progress: 0.5 }, { traceparent: 'garbage', now: NOW });
    expect(event).toEqual({ type: 'progress', progress: 0.5, timestamp: '2026-11-29T12:00:00.000Z' });
    expect(formatProgressEvent(event)).toBe(
      '{"type":"progress","progress":0.5,"timestamp":"2026-11-29T12:00:00.000Z"}\n',
    );
  });

  it('writes one line whatever the message contains, in contract order whatever the object order', () => {
    const line = formatProgressEvent({
      timestamp: NOW.toISOString(),
      message: 'two\nlines\r\u2028',
      progress: 1,
      type: 'progress',
    });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\n\r]/);
    expect(Object.keys(JSON.parse(line))).toEqual(['type', 'progress', 'message', 'timestamp']);
  });

  it('reads back what it writes', () => {
    const event = createProgressEvent(
      { progress: 2, total: 4, message: 'half' },
      { traceparent: TRACEPARENT, now: NOW },
    );
    expect(parseProgressLine(formatProgressEvent(event))).toEqual({ kind: 'event', event });
  });

  it('stamps a line without timestamp when reading (scripts may leave it out)', () => {
    expect(parseProgressLine('{"type":"progress","progress":1,"total":3}', () => NOW)).toEqual({
      kind: 'event',
      event: { type: 'progress', progress: 1, total: 3, timestamp: NOW.toISOString() },
    });
  });

  it.each([
    ['plain text', 'compiling 3 files', { kind: 'other' }],
    ['JSON that is no event', '{"level":"info","msg":"hi"}', { kind: 'other' }],
    ['another type', '{"type":"log","progress":1}', { kind: 'other' }],
    ['a JSON array', '[1,2]', { kind: 'other' }],
    ['broken JSON', '{"type":"progress",', { kind: 'other' }],
    [
      'a progress line whose progress is a string',
      '{"type":"progress","progress":"1"}',
      { kind: 'invalid', reason: 'progress must be a number' },
    ],
    [
      'a progress line without progress',
      '{"type":"progress"}',
      { kind: 'invalid', reason: 'progress must be a number' },
    ],
    [
      'a progress line whose total is a string',
      '{"type":"progress","progress":1,"total":"3"}',
      { kind: 'invalid', reason: 'total must be a number' },
    ],
    [
      'a progress line whose message is a number',
      '{"type":"progress","progress":1,"message":3}',
      { kind: 'invalid', reason: 'message must be a string' },
    ],
    [
      'a progress line whose timestamp is a number',
      '{"type":"progress","progress":1,"timestamp":3}',
      { kind: 'invalid', reason: 'timestamp must be a string' },
    ],
  ])('sorts %s as %j', (_label, line, expected) => {
    expect(parseProgressLine(line)).toEqual(expected);
  });
});
