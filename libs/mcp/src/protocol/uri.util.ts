/**
 * An absolute URI (RFC 3986): a scheme, a colon, and no white space. Used where URIs are declared or named in
 * filters (decorators, subscriptions).
 */
export const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

/**
 * The stricter form `resources/read` requires before any handler runs: printable ASCII only (other characters must
 * be percent-encoded), so that what reaches a handler and is echoed in results is a valid `format: "uri"`.
 */
export const ABSOLUTE_ASCII_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[\x21-\x7e]*$/;

/**
 * Longest URI the server considers, in characters: a longer one is not read, matched against a template, or
 * subscribed to (long enough for any real resource, short enough to keep matching and bookkeeping cheap).
 */
export const MAX_URI_LENGTH = 8192;

/**
 * Whether `value` can name a resource: a string of 1 to {@link MAX_URI_LENGTH} characters of the form
 * `resources/read` serves (`ABSOLUTE_ASCII_URI`: a scheme, then printable ASCII only, so no control character, space
 * or raw non-ASCII character). `McpPublisher.resourceUpdated` refuses anything else, and so does a shared event bus
 * reading a `resourceUpdated` from another process (nest-mcp-redis): what no handler could serve is never announced.
 *
 * @example isResourceUri('config://app') // true; isResourceUri('config://a\u001b[2Jpp') // false
 */
export function isResourceUri(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length > 0 && value.length <= MAX_URI_LENGTH && ABSOLUTE_ASCII_URI.test(value)
  );
}
