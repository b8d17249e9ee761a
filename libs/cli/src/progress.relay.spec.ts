import { describe, expect, it } from 'vitest';
import type { ProgressReporter } from './progress-reporter.interface.js';
import { ProgressRelay } from './progress.relay.js';

describe('ProgressRelay', () => {
  it('passes on only values beyond the last one (an MRTR retry replays the first steps)', () => {
    const shown: number[] = [];
    const reporter: ProgressReporter = {
      report: (progress) => shown.push(progress),
      reportStatus: () => {},
      suspend: () => {},
      finish: () => {},
    };
    const relay = new ProgressRelay(reporter);
    for (const progress of [1, 2, 1, 2, 3, 3, Number.NaN, 4]) relay.onprogress({ progress });
    expect(shown).toEqual([1, 2, 3, 4]);
  });
});
