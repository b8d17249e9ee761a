/** Progress lines on stderr, so that stdout carries only the final table. */
export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Rotates `items` by `by` places: round r starts with a different server, still A B C … in order. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
