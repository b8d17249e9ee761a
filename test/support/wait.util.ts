/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `condition` (every `intervalMs`, 5 ms by default) until it holds; throws after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs: number, what: string, intervalMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** `until` for a condition that has to ask something (a request, a store read): polled every `intervalMs` (20 ms). */
export async function untilAsync(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
