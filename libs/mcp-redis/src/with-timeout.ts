/**
 * `promise`, or a rejection after `ms`: bounds how long a caller waits, not the work itself, which keeps running (a
 * caller that must stop the work too cuts it off after the rejection, e.g. by dropping its connection). The timer
 * keeps the process alive while the caller waits (and no longer): a wait for a promise that nothing will settle still
 * ends, and the caller goes on, even when nothing else is left to run.
 * @internal
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what = 'Redis'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WaitTimeoutError(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The rejection of `withTimeout` when the bound passed (any other rejection is the promise's own). @internal */
export class WaitTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WaitTimeoutError';
  }
}
