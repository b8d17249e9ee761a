import { describe, expect, it } from 'vitest';
import { parseTraceContext } from './trace-context.parser.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('parseTraceContext', () => {
  it('keeps a valid traceparent and a bounded printable tracestate, and nothing else', () => {
    expect(parseTraceContext({ traceparent: TRACEPARENT, tracestate: 'vendor=a1,other=b2', extra: 'x' })).toEqual({
      traceparent: TRACEPARENT,
      tracestate: 'vendor=a1,other=b2',
    });
    expect(parseTraceContext({ traceparent: TRACEPARENT })).toEqual({ traceparent: TRACEPARENT });
  });

  it('rejects what is not a W3C traceparent: the link is lost, nothing fails', () => {
    for (const value of [
      undefined,
      null,
      'a string',
      [TRACEPARENT],
      {},
      { traceparent: 42 },
      { traceparent: 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' },
      { traceparent: '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01' },
      { traceparent: `${TRACEPARENT}-extra` },
      { traceparent: `01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-${'x'.repeat(300)}` },
    ])
      expect(parseTraceContext(value), JSON.stringify(value)).toBeUndefined();
  });

  it('drops a tracestate that is too long, not printable or not a string, keeping the traceparent', () => {
    for (const tracestate of ['a='.padEnd(513, 'b'), 'a=b\nc=d', 'a=\u00e9', 7, ''])
      expect(parseTraceContext({ traceparent: TRACEPARENT, tracestate })).toEqual({ traceparent: TRACEPARENT });
  });
});
