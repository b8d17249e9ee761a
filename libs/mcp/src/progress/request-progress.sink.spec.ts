import { describe, expect, it } from 'vitest';
import { thrown } from '../../../../test/support/thrown.js';
import { IllegalProgressError } from './illegal-progress.error.js';
import type { ProgressSink } from './progress-sink.interface.js';
import { CountingProgress, DoubleProgress, LongProgress, PercentProgress } from './progress.emitters.js';
import { RequestProgressSink } from './request-progress.sink.js';

/** The request's channel as the emitters see it: records what went out, answers whether a token was sent. */
class RecordingSink implements ProgressSink {
  readonly sent: number[] = [];
  constructor(private readonly tokenSent: boolean) {}
  send(progress: number): boolean {
    this.sent.push(progress);
    return this.tokenSent;
  }
}

const strictlyIncreasing = (values: number[]) =>
  values.every((value, index) => index === 0 || value > values[index - 1]);

describe.each([
  { label: 'with a progress token', tokenSent: true },
  { label: 'without a progress token', tokenSent: false },
])('RequestProgressSink $label', ({ tokenSent }) => {
  it('lets two emitters of one request send only increasing values; a lower one throws IllegalProgressError', () => {
    const channel = new RecordingSink(tokenSent);
    const request = new RequestProgressSink(channel);
    const first = new DoubleProgress(request);
    const second = new DoubleProgress(request);
    expect(first.emit(10)).toBe(tokenSent);
    const error = thrown(() => second.emit(5));
    expect(error).toBeInstanceOf(IllegalProgressError);
    expect(error.message).toBe(
      'progress must strictly increase across all emitters of a request: 5 after 10 sent by another emitter or progressFrom; ' +
        'report a request through one emitter, or continue from the last value sent',
    );
    // An equal value is not an increase either.
    expect(thrown(() => second.emit(10))).toBeInstanceOf(IllegalProgressError);
    expect(second.emit(11)).toBe(tokenSent);
    expect(thrown(() => first.emit(10.5))).toBeInstanceOf(IllegalProgressError);
    expect(first.emit(12)).toBe(tokenSent);
    expect(channel.sent).toEqual([10, 11, 12]);
    expect(request.current).toBe(12);
  });

  it('a refused value does not move the emitter that tried it: its own rule still reads from what it sent', () => {
    const request = new RequestProgressSink(new RecordingSink(tokenSent));
    const counting = new CountingProgress(request);
    new LongProgress(request).emit(5);
    expect(thrown(() => counting.emit())).toBeInstanceOf(IllegalProgressError);
    expect(counting.current).toBeUndefined();
    expect(counting.advance(6)).toBe(tokenSent);
    expect(counting.current).toBe(6);
  });

  it('keeps the per-emitter error message for a value that goes back inside one emitter', () => {
    const request = new RequestProgressSink(new RecordingSink(tokenSent));
    const progress = new PercentProgress(request);
    progress.emit(0.5);
    expect(thrown(() => progress.emit(0.25)).message).toBe('progress must strictly increase: 0.25 after 0.5');
  });

  it('whatever order many emitters report in, what reaches the channel strictly increases', () => {
    const channel = new RecordingSink(tokenSent);
    const request = new RequestProgressSink(channel);
    const emitters = [new DoubleProgress(request), new DoubleProgress(request), new DoubleProgress(request)];
    const next = [0, 0, 0];
    let refused = 0;
    for (let step = 0; step < 300; step++) {
      const index = (step * 7) % 3;
      next[index] += 1 + ((step * 13) % 5);
      try {
        emitters[index].emit(next[index]);
      } catch (error) {
        expect(error).toBeInstanceOf(IllegalProgressError);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(channel.sent.length + refused).toBe(300);
    expect(strictlyIncreasing(channel.sent)).toBe(true);
  });
});
