import { describe, expect, it } from 'vitest';
import { parseTraceparent } from './traceparent.parser.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads the trace and parent span ids of a version-00 value', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)).toEqual({ traceId: TRACE, spanId: SPAN });
  });

  it('accepts later versions with trailing fields (forward compatibility)', () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-what-comes-next`)).toEqual({ traceId: TRACE, spanId: SPAN });
  });

  it.each([
    ['not a string', 42],
    ['undefined', undefined],
    ['empty', ''],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['trailing data on version 00', `00-${TRACE}-${SPAN}-01-extra`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['missing flags', `00-${TRACE}-${SPAN}`],
  ])('ignores an invalid value (%s)', (_label, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});
