/**
 * The module option `principal` of the test fixtures: the caller is named by the `x-user` header (absent: an
 * anonymous caller, counted by its remote address).
 */
export function principalFromUserHeader(request: unknown): string | undefined {
  const user = (request as { headers?: Record<string, string | string[] | undefined> }).headers?.['x-user'];
  return typeof user === 'string' ? user : undefined;
}

/** A fetch that names its caller in `x-user` (read by `principalFromUserHeader` and the fixtures' `principal`). */
export function fetchAs(user: string, base: typeof fetch = globalThis.fetch): typeof fetch {
  return ((input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-user', user);
    return base(input, { ...init, headers });
  }) as typeof fetch;
}
