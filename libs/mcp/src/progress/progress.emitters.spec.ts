import { describe, expect, it } from 'vitest';
import { thrown } from '../../../../test/support/thrown.js';
import { IllegalProgressError } from './illegal-progress.error.js';
import type { ProgressSink } from './progress-sink.interface.js';
import { CountingProgress, DoubleProgress, LongProgress, PercentProgress } from './progress.emitters.js';

/**
 * The four emitters against a real ProgressSink: a recorder that keeps what it was given and answers as the
 * request's channel would — `true` when the client sent a progress token, `false` when it did not.
 */

interface Sent {
  progress: number;
  total: number | undefined;
  message: string | undefined;
}

class RecordingSink implements ProgressSink {
  readonly sent: Sent[] = [];
  constructor(private readonly tokenSent: boolean) {}
  send(progress: number, total: number | undefined, message: string | undefined): boolean {
    this.sent.push({ progress, total, message });
    return this.tokenSent;
  }
}

/** Every rule is checked the same way with a token (sink answers true) and without one (sink answers false). */
const SINKS = [
  { label: 'with a progress token', tokenSent: true },
  { label: 'without a progress token', tokenSent: false },
] as const;

/** Runs `scenario` with both sinks and asserts the same IllegalProgressError (name and message) both times. */
function sameIllegalProgressBothWays(scenario: (sink: ProgressSink) => void): IllegalProgressError {
  const errors = SINKS.map(({ tokenSent }) => thrown(() => scenario(new RecordingSink(tokenSent))));
  for (const error of errors) {
    expect(error).toBeInstanceOf(IllegalProgressError);
    expect(error).toBeInstanceOf(RangeError);
    expect(error.name).toBe('IllegalProgressError');
  }
  expect(errors[0].message).toBe(errors[1].message);
  return errors[0] as IllegalProgressError;
}

describe('IllegalProgressError', () => {
  it('is a named RangeError', () => {
    const error = new IllegalProgressError('bad');
    expect(error).toBeInstanceOf(RangeError);
    expect(error.name).toBe('IllegalProgressError');
    expect(error.message).toBe('bad');
  });
});

/** Each emitter with a total, and three increasing values it reports (CountingProgress counts them: 1, 2, 3). */
const THREE_REPORTS = [
  {
    emitter: 'DoubleProgress',
    total: 3.5,
    values: [0.25, 1.5, 3.5],
    create: (sink: ProgressSink) => new DoubleProgress(sink, 3.5),
  },
  {
    emitter: 'LongProgress',
    total: 100,
    values: [1, 50, 100],
    create: (sink: ProgressSink) => new LongProgress(sink, 100),
  },
  {
    emitter: 'CountingProgress',
    total: 3,
    values: [1, 2, 3],
    create: (sink: ProgressSink) => new CountingProgress(sink, 3),
  },
  {
    emitter: 'PercentProgress',
    total: 1,
    values: [0, 0.333, 1],
    create: (sink: ProgressSink) => new PercentProgress(sink),
  },
];
/** The messages of the three reports: one, none, one. */
const MESSAGES = ['first', undefined, 'last'];

describe.each(SINKS)('progress emitters $label', ({ tokenSent }) => {
  it.each(THREE_REPORTS)(
    '$emitter sends exactly the wire values with its total, messages passed through',
    ({ total, values, create }) => {
      const sink = new RecordingSink(tokenSent);
      const progress = create(sink);
      // CountingProgress is not given the values: it counts them.
      const report = (value: number, message?: string) =>
        progress instanceof CountingProgress ? progress.emit(message) : progress.emit(value, message);
      expect(progress.total).toBe(total);
      expect(progress.current).toBeUndefined();
      expect(values.map((value, index) => report(value, MESSAGES[index]))).toEqual([tokenSent, tokenSent, tokenSent]);
      expect(progress.current).toBe(values[2]);
      expect(sink.sent).toEqual(values.map((value, index) => ({ progress: value, total, message: MESSAGES[index] })));
    },
  );

  describe('DoubleProgress', () => {
    it('works without a total (sent as undefined)', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new DoubleProgress(sink);
      expect(progress.total).toBeUndefined();
      progress.emit(0.1);
      progress.emit(1e9, 'big');
      expect(sink.sent).toEqual([
        { progress: 0.1, total: undefined, message: undefined },
        { progress: 1e9, total: undefined, message: 'big' },
      ]);
    });

    it('accepts any finite start value (tiny increments too)', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new DoubleProgress(sink);
      progress.emit(0);
      progress.emit(Number.EPSILON);
      progress.emit(2 * Number.EPSILON);
      expect(sink.sent.map((s) => s.progress)).toEqual([0, Number.EPSILON, 2 * Number.EPSILON]);
    });

    it.each([
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['-Infinity', Number.NEGATIVE_INFINITY],
    ])('rejects a non-finite value (%s) and sends nothing', (_label, value) => {
      const sink = new RecordingSink(tokenSent);
      const progress = new DoubleProgress(sink, 10);
      expect(() => progress.emit(value)).toThrow(IllegalProgressError);
      expect(() => progress.emit(value)).toThrow(/finite/);
      expect(sink.sent).toEqual([]);
      expect(progress.current).toBeUndefined();
    });

    it('rejects a value that is not a number at all', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new DoubleProgress(sink);
      expect(() => progress.emit('1' as unknown as number)).toThrow(IllegalProgressError);
      expect(() => progress.emit(null as unknown as number)).toThrow(IllegalProgressError);
      expect(sink.sent).toEqual([]);
    });

    it('rejects an equal value and a decreasing value; the rejected value leaves the emitter as it was', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new DoubleProgress(sink, 10);
      progress.emit(2.5);
      expect(() => progress.emit(2.5)).toThrow(IllegalProgressError);
      expect(() => progress.emit(2.5)).toThrow(/strictly increase/);
      expect(() => progress.emit(2.4999)).toThrow(IllegalProgressError);
      expect(() => progress.emit(-1)).toThrow(IllegalProgressError);
      expect(progress.current).toBe(2.5);
      progress.emit(2.5001);
      expect(sink.sent.map((s) => s.progress)).toEqual([2.5, 2.5001]);
    });

    it.each([
      ['0', 0],
      ['negative', -1],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['-Infinity', Number.NEGATIVE_INFINITY],
    ])('rejects an invalid total (%s) at creation', (_label, total) => {
      expect(() => new DoubleProgress(new RecordingSink(tokenSent), total)).toThrow(IllegalProgressError);
      expect(() => new DoubleProgress(new RecordingSink(tokenSent), total)).toThrow(/total/);
    });

    it('accepts a fractional total', () => {
      const sink = new RecordingSink(tokenSent);
      new DoubleProgress(sink, 0.75).emit(0.5);
      expect(sink.sent).toEqual([{ progress: 0.5, total: 0.75, message: undefined }]);
    });

    it('rejects a message that is not a string, without consuming the value', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new DoubleProgress(sink);
      expect(() => progress.emit(1, 42 as unknown as string)).toThrow(IllegalProgressError);
      expect(sink.sent).toEqual([]);
      expect(progress.current).toBeUndefined();
      progress.emit(1, 'now fine');
      expect(sink.sent).toEqual([{ progress: 1, total: undefined, message: 'now fine' }]);
    });

    it('passes an empty message and unicode through untouched', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new DoubleProgress(sink);
      progress.emit(1, '');
      progress.emit(2, 'Reticulating splines… 🚀');
      expect(sink.sent.map((s) => s.message)).toEqual(['', 'Reticulating splines… 🚀']);
    });
  });

  describe('LongProgress', () => {
    it('works without a total (sent as undefined)', () => {
      const sink = new RecordingSink(tokenSent);
      new LongProgress(sink).emit(7);
      expect(sink.sent).toEqual([{ progress: 7, total: undefined, message: undefined }]);
    });

    it('accepts bigint values and sends them as numbers', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new LongProgress(sink, 10);
      progress.emit(3n, 'three');
      progress.emit(BigInt(Number.MAX_SAFE_INTEGER));
      expect(sink.sent).toEqual([
        { progress: 3, total: 10, message: 'three' },
        { progress: Number.MAX_SAFE_INTEGER, total: 10, message: undefined },
      ]);
      expect(typeof sink.sent[0].progress).toBe('number');
      expect(progress.current).toBe(Number.MAX_SAFE_INTEGER);
    });

    it.each([
      ['a float', 1.5],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['beyond the safe integers', Number.MAX_SAFE_INTEGER + 1],
    ])('rejects %s', (_label, value) => {
      const sink = new RecordingSink(tokenSent);
      const progress = new LongProgress(sink);
      expect(() => progress.emit(value)).toThrow(IllegalProgressError);
      expect(() => progress.emit(value)).toThrow(/whole number/);
      expect(sink.sent).toEqual([]);
    });

    it('rejects a bigint beyond the safe integers', () => {
      const sink = new RecordingSink(tokenSent);
      expect(() => new LongProgress(sink).emit(2n ** 60n)).toThrow(IllegalProgressError);
      expect(sink.sent).toEqual([]);
    });

    it('rejects equal and decreasing values, bigint or not', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new LongProgress(sink);
      progress.emit(5);
      expect(() => progress.emit(5)).toThrow(IllegalProgressError);
      expect(() => progress.emit(5n)).toThrow(IllegalProgressError);
      expect(() => progress.emit(4)).toThrow(/strictly increase/);
      progress.emit(6n);
      expect(sink.sent.map((s) => s.progress)).toEqual([5, 6]);
    });

    it.each([
      ['fractional', 2.5],
      ['0', 0],
      ['negative', -3],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
    ])('rejects an invalid total (%s)', (_label, total) => {
      expect(() => new LongProgress(new RecordingSink(tokenSent), total)).toThrow(IllegalProgressError);
    });
  });

  describe('CountingProgress', () => {
    it('advance(n) adds n at once; mixes with emit', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new CountingProgress(sink);
      progress.advance(5, 'batch');
      progress.emit();
      progress.advance(10);
      expect(sink.sent).toEqual([
        { progress: 5, total: undefined, message: 'batch' },
        { progress: 6, total: undefined, message: undefined },
        { progress: 16, total: undefined, message: undefined },
      ]);
    });

    it('may count past its total (the total is a hint, not a bound)', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new CountingProgress(sink, 1);
      progress.emit();
      progress.emit();
      expect(sink.sent.map((s) => s.progress)).toEqual([1, 2]);
    });

    it.each([
      ['0', 0],
      ['negative', -1],
      ['fractional', 1.5],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
    ])('rejects invalid steps (%s) and keeps its count', (_label, steps) => {
      const sink = new RecordingSink(tokenSent);
      const progress = new CountingProgress(sink);
      progress.emit();
      expect(() => progress.advance(steps)).toThrow(IllegalProgressError);
      expect(() => progress.advance(steps)).toThrow(/steps/);
      progress.emit();
      expect(sink.sent.map((s) => s.progress)).toEqual([1, 2]);
    });

    it('keeps its count when a bad message is rejected', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new CountingProgress(sink);
      expect(() => progress.emit({} as unknown as string)).toThrow(IllegalProgressError);
      progress.emit('ok');
      expect(sink.sent).toEqual([{ progress: 1, total: undefined, message: 'ok' }]);
    });

    it.each([
      ['fractional', 2.5],
      ['0', 0],
      ['negative', -2],
    ])('rejects an invalid total (%s)', (_label, total) => {
      expect(() => new CountingProgress(new RecordingSink(tokenSent), total)).toThrow(IllegalProgressError);
    });
  });

  describe('PercentProgress', () => {
    it.each([
      ['below 0', -0.01],
      ['above 1', 1.0001],
      ['a percentage instead of a fraction', 50],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['-Infinity', Number.NEGATIVE_INFINITY],
    ])('rejects %s', (_label, fraction) => {
      const sink = new RecordingSink(tokenSent);
      const progress = new PercentProgress(sink);
      expect(() => progress.emit(fraction)).toThrow(IllegalProgressError);
      expect(sink.sent).toEqual([]);
    });

    it('is strictly increasing: equal, decreasing and anything after 1 are rejected', () => {
      const sink = new RecordingSink(tokenSent);
      const progress = new PercentProgress(sink);
      progress.emit(0.5);
      expect(() => progress.emit(0.5)).toThrow(IllegalProgressError);
      expect(() => progress.emit(0.4)).toThrow(IllegalProgressError);
      progress.emit(1);
      expect(() => progress.emit(1)).toThrow(IllegalProgressError);
      expect(sink.sent.map((s) => s.progress)).toEqual([0.5, 1]);
    });
  });
});

describe('the same IllegalProgressError whether or not a token was sent', () => {
  it.each<[string, (sink: ProgressSink) => void]>([
    ['double NaN', (sink) => new DoubleProgress(sink).emit(Number.NaN)],
    ['double Infinity', (sink) => new DoubleProgress(sink).emit(Number.POSITIVE_INFINITY)],
    [
      'double equal',
      (sink) => {
        const p = new DoubleProgress(sink);
        p.emit(1);
        p.emit(1);
      },
    ],
    [
      'double decreasing',
      (sink) => {
        const p = new DoubleProgress(sink);
        p.emit(1);
        p.emit(0.5);
      },
    ],
    ['double total 0', (sink) => new DoubleProgress(sink, 0)],
    ['double total NaN', (sink) => new DoubleProgress(sink, Number.NaN)],
    ['double bad message', (sink) => new DoubleProgress(sink).emit(1, 5 as unknown as string)],
    ['long float', (sink) => new LongProgress(sink).emit(1.5)],
    ['long huge bigint', (sink) => new LongProgress(sink).emit(2n ** 64n)],
    [
      'long decreasing',
      (sink) => {
        const p = new LongProgress(sink);
        p.emit(2n);
        p.emit(1);
      },
    ],
    ['long fractional total', (sink) => new LongProgress(sink, 1.5)],
    ['counting advance(0)', (sink) => new CountingProgress(sink).advance(0)],
    ['counting advance(-1)', (sink) => new CountingProgress(sink).advance(-1)],
    ['counting advance(0.5)', (sink) => new CountingProgress(sink).advance(0.5)],
    ['counting fractional total', (sink) => new CountingProgress(sink, 0.5)],
    ['percent > 1', (sink) => new PercentProgress(sink).emit(1.5)],
    ['percent < 0', (sink) => new PercentProgress(sink).emit(-0.5)],
    [
      'percent equal',
      (sink) => {
        const p = new PercentProgress(sink);
        p.emit(0.2);
        p.emit(0.2);
      },
    ],
  ])('%s', (_label, scenario) => {
    sameIllegalProgressBothWays(scenario);
  });

  it('a bad value after a good one throws with a token just as without', () => {
    for (const { tokenSent } of SINKS) {
      const sink = new RecordingSink(tokenSent);
      const progress = new DoubleProgress(sink);
      expect(progress.emit(1)).toBe(tokenSent);
      expect(() => progress.emit(1)).toThrow(IllegalProgressError);
      expect(sink.sent).toHaveLength(1);
    }
  });
});

describe('the names of the progress-emitter design (ADR 0021)', () => {
  it('PercentProgress.complete(fraction, message?) is emit under the design’s name: same checks, same sink', () => {
    const sink = new RecordingSink(true);
    const progress = new PercentProgress(sink);
    expect(progress.complete(0.25)).toBe(true);
    expect(progress.complete(0.5, 'half')).toBe(true);
    progress.emit(0.75);
    expect(sink.sent).toEqual([
      { progress: 0.25, total: 1, message: undefined },
      { progress: 0.5, total: 1, message: 'half' },
      { progress: 0.75, total: 1, message: undefined },
    ]);
    expect(sameIllegalProgressBothWays((target) => new PercentProgress(target).complete(1.5)).message).toBe(
      'progress fraction must be between 0 and 1, got 1.5',
    );
    expect(() => progress.complete(0.5)).toThrow('progress must strictly increase: 0.5 after 0.75');
  });
});

describe('a null total (the progress-emitter design\'s "unknown")', () => {
  /** Reports the value 1 with the message "one" on any of the three. */
  const reportOne = (progress: DoubleProgress | LongProgress | CountingProgress) =>
    progress instanceof CountingProgress ? progress.emit('one') : progress.emit(1, 'one');
  const UNKNOWN = [
    { emitter: 'DoubleProgress', create: (sink: ProgressSink) => new DoubleProgress(sink, null) },
    { emitter: 'LongProgress', create: (sink: ProgressSink) => new LongProgress(sink, null) },
    { emitter: 'CountingProgress', create: (sink: ProgressSink) => new CountingProgress(sink, null) },
  ];

  it.each(UNKNOWN)(
    '$emitter: is the same as no total — `total` is undefined and no notification carries one',
    ({ create }) => {
      const sink = new RecordingSink(true);
      const progress = create(sink);
      expect(progress.total).toBeUndefined();
      expect(reportOne(progress)).toBe(true);
      expect(sink.sent).toEqual([{ progress: 1, total: undefined, message: 'one' }]);
    },
  );

  it('a total that is neither a number nor null is still refused', () => {
    const error = sameIllegalProgressBothWays((sink) => new DoubleProgress(sink, 'ten' as unknown as number));
    expect(error.message).toBe('progress total must be a finite number greater than 0, got ten');
  });
});
