/** A header value as Node's `ServerResponse.setHeader` takes it. */
type HeaderValue = string | number | readonly string[];

/**
 * Argument 1 of a handler's pipeline when the call has no HTTP response (stdio, the in-process testing kit, a task's
 * round): it takes the headers an enhancer sets — `@nestjs/throttler`'s guard sets `X-RateLimit-*` and `Retry-After`
 * on every call — and keeps them for the call, so that an enhancer written for HTTP does not crash off HTTP. Nothing
 * is sent anywhere; the library reads `Retry-After` back when a guard refuses the call with 429.
 */
export class McpLocalResponse {
  private readonly headers = new Map<string, HeaderValue>();

  /** Express's and Fastify's way to set a header. */
  header(name: string, value: HeaderValue): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }

  /** Node's way to set a header. */
  setHeader(name: string, value: HeaderValue): this {
    return this.header(name, value);
  }

  getHeader(name: string): HeaderValue | undefined {
    return this.headers.get(name.toLowerCase());
  }

  /** Every header set so far, by lower-case name. */
  getHeaders(): Record<string, HeaderValue> {
    return Object.fromEntries(this.headers);
  }
}
