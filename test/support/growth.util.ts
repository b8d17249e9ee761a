import { performance } from 'node:perf_hooks';

/**
 * How a piece of work grows with its input, without a wall-clock bound that a loaded machine breaks: the best of
 * `runs` timings at the large size over the best at the small size. Linear work gives about `large / small`,
 * quadratic work its square; load slows both sizes alike, so the ratio tells the two apart where a time limit cannot.
 * `work(size)` builds nothing itself: give it inputs made beforehand.
 */
export function growthRatio(work: (size: 'small' | 'large') => void, runs = 3): number {
  const best = (size: 'small' | 'large') => {
    let fastest = Number.POSITIVE_INFINITY;
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      work(size);
      fastest = Math.min(fastest, performance.now() - started);
    }
    return Math.max(fastest, 0.05);
  };
  best('small'); // warm-up: the first run measures the JIT
  return best('large') / best('small');
}
