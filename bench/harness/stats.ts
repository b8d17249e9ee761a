/** Small statistics over rounds. */

export function median(values: readonly number[]): number {
  const finite = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const middle = Math.floor(finite.length / 2);
  return finite.length % 2 === 1 ? finite[middle] : (finite[middle - 1] + finite[middle]) / 2;
}

/**
 * The ratio of two series measured in the same interleaved rounds: the median of the per-round ratios
 * (`a[i] / b[i]`), so a round slowed down by a neighbour's load affects both sides of its own ratio alike.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  const ratios: number[] = [];
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    if (Number.isFinite(a[index]) && Number.isFinite(b[index]) && b[index] !== 0) ratios.push(a[index] / b[index]);
  }
  return median(ratios);
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
