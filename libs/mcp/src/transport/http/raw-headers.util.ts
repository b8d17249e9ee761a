/**
 * How many times the header `name` (lower case) appears in Node's `rawHeaders` (name, value, name, value, …). Node
 * keeps only the first of several `Host` or `Authorization` headers in `headers` and drops the others, so a repeated
 * one is visible only here. Allocates nothing: it runs on every request.
 */
export function rawHeaderCount(rawHeaders: readonly string[] | undefined, name: string): number {
  if (!rawHeaders) return 0;
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const header = rawHeaders[index];
    if (header.length === name.length && header.toLowerCase() === name) count++;
  }
  return count;
}

/** Every value of the header `name` (lower case) in `rawHeaders`, in the order the client sent them. */
export function rawHeaderValues(rawHeaders: readonly string[] | undefined, name: string): string[] {
  const values: string[] = [];
  if (!rawHeaders) return values;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const header = rawHeaders[index];
    if (header.length === name.length && header.toLowerCase() === name) values.push(rawHeaders[index + 1]);
  }
  return values;
}
