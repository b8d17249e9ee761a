/**
 * The module option `principal` of the test fixtures: the caller is named by the `x-user` header (absent: an
 * anonymous caller, counted by its remote address).
 */
export function principalFromUserHeader(request: unknown): string | undefined {
  const user = (request as { headers?: Record<string, string | string[] | undefined> }).headers?.['x-user'];
  return typeof user === 'string' ? user : undefined;
}
